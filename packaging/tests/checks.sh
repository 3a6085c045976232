#!/bin/sh
# checks.sh: the package test proper, run as root inside a clean Debian 12
# root (see package-test.sh). /pkgtest holds the .debs (debs/), the example
# plugin's sources (plugin/) and run-unit.sh. Usage: checks.sh PORT, the
# loopback port to serve on. Prints one line per check and a closing
# "N passed, N failed"; exits non-zero if any check failed.
# shellcheck disable=SC2317 # the check functions are called through check()
set -u
T=/pkgtest
PORT=$1
UNIT=/lib/systemd/system/envhost.service
CONFIG=/etc/envhost/envhost.json
LOCAL_PLUGIN_DIR=/usr/local/lib/envhost/plugins
USER_NAME=envhost

passed=0
failed=0
check() { # check DESCRIPTION COMMAND...: runs COMMAND, shows its output if it fails
    desc=$1; shift
    if "$@" >/tmp/check.out 2>&1; then
        passed=$((passed + 1)); echo "ok - $desc"
    else
        failed=$((failed + 1)); echo "FAIL - $desc"; tail -n 25 /tmp/check.out | sed 's/^/    /'
    fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]; exit
}
must() { # like check, but later checks make no sense without this one
    before=$failed
    check "$@"
    [ "$failed" -eq "$before" ] || finish
}

# Every path outside the scratch areas, and the accounts: compared before
# install and after purge.
snapshot() {
    find / -xdev \( -path /pkgtest -o -path /tmp -o -path /root -o -path /var/cache \
        -o -path /var/lib/apt/lists -o -path /var/lib/dpkg -o -path /var/log \) -prune -o -print \
        | sort >"$1"
    cut -d: -f1 /etc/passwd | sed 's/^/user:/' >>"$1"
    cut -d: -f1 /etc/group | sed 's/^/group:/' >>"$1"
}

http() { curl -fsS --max-time 10 "http://127.0.0.1:$PORT$1"; }
post() { curl -fsS --max-time 30 -H 'Content-Type: application/json' -d "$2" "http://127.0.0.1:$PORT$1"; }

SERVICE_PID=
start_service() {
    "$T/run-unit.sh" "$UNIT" >>/tmp/envhost.log 2>&1 &
    SERVICE_PID=$!
    for _ in $(seq 100); do
        http /health >/dev/null 2>&1 && return 0
        kill -0 "$SERVICE_PID" 2>/dev/null || break
        sleep 0.2
    done
    echo "envhost did not answer /health; its log:"; tail -n 30 /tmp/envhost.log
    return 1
}
stop_service() {
    [ -n "$SERVICE_PID" ] || return 0
    kill "$SERVICE_PID" 2>/dev/null; wait "$SERVICE_PID" 2>/dev/null; SERVICE_PID=
}
trap stop_service EXIT

healthy() { http /health | grep -q '"status" *: *"healthy"'; }

serves() { # serves ENV...: /envs lists every ENV
    envs=$(http /envs) || return 1
    for e in "$@"; do
        echo "$envs" | grep -q "\"$e\"" || { echo "$e missing from /envs: $envs"; return 1; }
    done
}

# step ENV ACTION EXPECTED: a stateless HTTP step whose reply contains EXPECTED.
step() {
    reply=$(post "/envs/$1/step" "{\"action\": $2}") || return 1
    echo "$reply" | grep -qF "$3" || { echo "no '$3' in: $reply"; return 1; }
}

runs_as_service_user() {
    uid=$(awk '/^Uid:/ {print $2}' "/proc/$SERVICE_PID/status")
    [ "$uid" = "$(id -u "$USER_NAME")" ] || { echo "envhost runs as uid $uid"; return 1; }
}

# --help and the man page name the same options.
help_matches_man() {
    envhost --help | grep -o -- '--[a-z][a-z-]*' | sort -u >/tmp/help.opts
    zcat /usr/share/man/man1/envhost.1.gz | sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z-]*' | sort -u >/tmp/man.opts
    diff /tmp/help.opts /tmp/man.opts
}

version_matches_package() {
    upstream=$(dpkg-query -W -f '${Version}' envhost | sed 's/-[^-]*$//')
    out=$(envhost --version)
    case "$out" in
    "envhost $upstream" | "envhost $upstream "*) ;;
    *) echo "got '$out', want 'envhost $upstream'"; return 1 ;;
    esac
}

build_with_cmake() {
    rm -rf /tmp/build-cmake
    cmake -S "$T/plugin" -B /tmp/build-cmake && cmake --build /tmp/build-cmake &&
        install -m 644 /tmp/build-cmake/greet_cmake.so "$LOCAL_PLUGIN_DIR/"
}
build_with_pkg_config() {
    rm -rf /tmp/build-pc && cp -r "$T/plugin" /tmp/build-pc && make -C /tmp/build-pc &&
        install -m 644 /tmp/build-pc/greet_pkgconfig.so "$LOCAL_PLUGIN_DIR/"
}

# ---- install ---------------------------------------------------------------
must "apt-get update" apt-get update -qq
snapshot /tmp/before
must "apt installs the packages and their dependencies" \
    apt-get install -y -q "$T"/debs/*.deb
packages=$(dpkg-query -W -f '${Package}\n' 'envhost*')

check "envhost --version names the package version" version_matches_package
check "envhost --help matches the man page" help_matches_man
check "systemd-analyze verify accepts the unit" systemd-analyze verify "$UNIT"
check "the package made a system user" sh -c "getent passwd $USER_NAME | awk -F: '\$3 < 1000'"
check "the package made the local plugin directory" test -d "$LOCAL_PLUGIN_DIR"

# ---- serve, as the unit runs it --------------------------------------------
# The admin's part: move the service to the test port.
sed -i "s/\"port\": *[0-9]*/\"port\": $PORT/" "$CONFIG"
system_plugin_dir=$(pkg-config --variable=plugindir envhost)
bundled=$(for f in "$system_plugin_dir"/*.so; do printf '%s ' "$(basename "$f" .so)"; done)
bundled=${bundled% }
must "envhost started as the unit starts it answers /health" start_service
check "envhost runs as the $USER_NAME user" runs_as_service_user
check "/health says healthy" healthy
# shellcheck disable=SC2086
check "serves the bundled plugins ($bundled)" serves $bundled
case " $bundled " in *" coding_env "*)
    # Its sandbox needs user namespaces and mounts: this proves the unit's
    # user and privileges leave them possible.
    check "coding_env runs code in its sandbox" step coding_env '{"code": "print(6 * 7)"}' '42' ;;
esac

# ---- an out-of-tree plugin, against the installed SDK ----------------------
check "example plugin builds with find_package(envhost)" build_with_cmake
check "example plugin builds with pkg-config" build_with_pkg_config
stop_service
must "envhost restarts" start_service
# shellcheck disable=SC2086
check "serves the dropped-in plugins after a restart" serves $bundled greet_cmake greet_pkgconfig
check "the find_package build steps" step greet_cmake '{"name": "cmake"}' 'hello, cmake'
check "the pkg-config build steps" step greet_pkgconfig '{"name": "pkg-config"}' 'hello, pkg-config'
stop_service

# ---- remove, then purge ----------------------------------------------------
rm -f "$LOCAL_PLUGIN_DIR/greet_cmake.so" "$LOCAL_PLUGIN_DIR/greet_pkgconfig.so"
# shellcheck disable=SC2086
check "apt removes the packages" apt-get remove -y -q $packages
check "removal keeps the configuration" test -f "$CONFIG"
check "removal takes the binary" test ! -e /usr/bin/envhost
# dpkg, as apt no longer knows packages that were installed from files.
# shellcheck disable=SC2086
check "dpkg purges the packages" dpkg --purge $packages
check "apt autoremoves their dependencies" apt-get autoremove --purge -y -q
snapshot /tmp/after
check "purge leaves nothing behind" diff /tmp/before /tmp/after
finish
