#!/bin/sh
# boot-checks.sh ROOT PORT: phase 2 of the package test, run on the host.
# Boots ROOT with systemd as PID 1 (systemd-nspawn, own network namespace)
# and checks the service as systemd really runs it: with the unit's user and
# hardening, coding_env's sandbox must still work. --volatile=overlay throws
# away everything the boot writes, so phase 3 finds the root as phase 1 left it.
set -u
root=$(realpath "$1")
# shellcheck disable=SC2034 # both are read by lib.sh
PORT=$2 RESULTS=$root/pkgtest/results
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

log=$root/pkgtest/boot.log
systemd-nspawn --quiet --register=no --keep-unit --private-network --volatile=overlay \
    --directory="$root" --boot >"$log" 2>&1 </dev/null &
nspawn=$!
trap 'kill "$nspawn" 2>/dev/null; wait "$nspawn" 2>/dev/null' EXIT

booted() { # systemd in the container finished booting ("degraded" counts:
           # a unit unrelated to envhost may fail in a container)
    for _ in $(seq 150); do
        leader=$(pgrep -P "$nspawn" -x systemd) &&
            state=$(nsenter -t "$leader" -a systemctl is-system-running --wait 2>/dev/null)
        case ${state:-} in running | degraded) return 0 ;; esac
        kill -0 "$nspawn" 2>/dev/null || break
        sleep 0.2
    done
    tail -n 20 "$log"
    return 1
}
must "the root boots with systemd (nspawn)" booted
leader=$(pgrep -P "$nspawn" -x systemd)
IN="nsenter -t $leader -a"

main_pid() { $IN systemctl show -P MainPID envhost.service; }
restarts_on_failure() {
    before=$(main_pid)
    $IN kill -9 "$before" || return 1
    sleep 3 # RestartSec=2s
    after=$(main_pid)
    if [ "$after" = 0 ] || [ "$after" = "$before" ] || ! wait_healthy ""; then
        echo "MainPID $before -> $after"
        $IN systemctl status --no-pager -n 5 envhost | cut -c1-160
        return 1
    fi
}
restarts_on_plugin_install() {
    before=$(main_pid)
    $IN sh -c 'dpkg -i /pkgtest/debs/envhost-plugin-echo_*.deb' >/dev/null || return 1
    after=$(main_pid)
    if [ "$after" = 0 ] || [ "$after" = "$before" ]; then
        echo "MainPID $before -> $after"; return 1
    fi
    wait_healthy ""
}
runs_as_service_user() {
    # shellcheck disable=SC2016 # an awk program
    uid=$($IN awk '/^Uid:/ {print $2}' "/proc/$(main_pid)/status")
    [ "$uid" = "$($IN id -u envhost)" ] || { echo "envhost runs as uid $uid"; return 1; }
}

bundled=$(cat "$root/pkgtest/bundled")
must "systemd started envhost at boot" wait_healthy
check "systemd runs it as the envhost user" runs_as_service_user
# shellcheck disable=SC2086
check "serves the bundled and dropped-in plugins" serves $bundled greet_cmake greet_pkgconfig
case " $bundled " in *" coding_env "*)
    check "under the unit's hardening, coding_env's sandbox runs code" \
        step coding_env '{"code": "print(6 * 7)"}' '42' ;;
esac
check "Restart=on-failure brings envhost back after a crash" restarts_on_failure
check "systemctl restart brings it back" sh -c "$IN systemctl restart envhost.service && sleep 0.5"
check "... answering /health" wait_healthy
check "installing a plugin package restarts envhost (dpkg trigger)" restarts_on_plugin_install
$IN systemctl poweroff >/dev/null 2>&1 || true
