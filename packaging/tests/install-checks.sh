#!/bin/sh
# shellcheck disable=SC2317 # the check functions are called through check()
# install-checks.sh PORT: phase 1 of the package test, run as root inside the
# clean root (enter-root.sh). Installs the .debs from /pkgtest/debs with apt,
# checks the installed files, runs envhost as its unit does, and serves two
# builds of the example plugin made against the installed SDK.
set -u
T=/pkgtest
# shellcheck disable=SC2034 # both are read by lib.sh
PORT=$1 RESULTS=$T/results
# shellcheck source=lib.sh
. "$T/lib.sh"

UNIT=/lib/systemd/system/envhost.service
CONFIG=/etc/envhost/envhost.json
LOCAL_PLUGIN_DIR=/usr/local/lib/envhost/plugins
SERVICE_USER=envhost

version_matches_package() {
    upstream=$(dpkg-query -W -f '${Version}' envhost | sed 's/-[^-]*$//')
    out=$(envhost --version)
    case "$out" in
    "envhost $upstream" | "envhost $upstream "*) ;;
    *) echo "got '$out', want 'envhost $upstream'"; return 1 ;;
    esac
}
help_matches_man() { # man finds the page, and it names the options --help names
    page=$(man -w envhost) || return 1
    envhost --help | grep -o -- '--[a-z][a-z-]*' | sort -u >/tmp/help.opts
    zcat "$page" | sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z-]*' | sort -u >/tmp/man.opts
    diff /tmp/help.opts /tmp/man.opts
}
system_user() { getent passwd "$SERVICE_USER" | awk -F: '$3 < 1000 && $7 ~ /nologin$/' | grep -q .; }

SERVICE_PID=
start_service() {
    "$T/run-unit.sh" "$UNIT" >>/tmp/envhost.log 2>&1 &
    SERVICE_PID=$!
    wait_healthy "$SERVICE_PID" && return 0
    echo "envhost did not answer /health; its log:"; tail -n 30 /tmp/envhost.log
    return 1
}
stop_service() {
    [ -n "$SERVICE_PID" ] || return 0
    kill "$SERVICE_PID" 2>/dev/null; wait "$SERVICE_PID" 2>/dev/null; SERVICE_PID=
}
trap stop_service EXIT
runs_as_service_user() {
    uid=$(awk '/^Uid:/ {print $2}' "/proc/$SERVICE_PID/status")
    [ "$uid" = "$(id -u "$SERVICE_USER")" ] || { echo "envhost runs as uid $uid"; return 1; }
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
snapshot "$T/before"
must "apt installs the packages and their dependencies" apt-get install -y -q "$T"/debs/*.deb
check "envhost --version names the package version" version_matches_package
check "envhost --help matches the man page" help_matches_man
check "systemd-analyze verify accepts the unit" systemd-analyze verify "$UNIT"
check "the package made a system user" system_user
check "the package made the local plugin directory" test -d "$LOCAL_PLUGIN_DIR"

# ---- serve, as the unit runs it --------------------------------------------
# The admin's part: move the service to the test port.
sed -i "s/\"port\": *[0-9]*/\"port\": $PORT/" "$CONFIG"
system_plugin_dir=$(pkg-config --variable=plugindir envhost)
bundled=$(for f in "$system_plugin_dir"/*.so; do printf '%s ' "$(basename "$f" .so)"; done)
bundled=${bundled% }
echo "$bundled" >"$T/bundled"
must "envhost started as the unit starts it answers /health" start_service
check "envhost runs as the $SERVICE_USER user" runs_as_service_user
# shellcheck disable=SC2086
check "serves the bundled plugins ($bundled)" serves $bundled
case " $bundled " in *" coding_env "*)
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
exit 0 # failed checks are counted by package-test.sh
