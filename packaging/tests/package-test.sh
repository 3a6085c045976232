#!/bin/sh
# package-test.sh DIST: installs the .debs in DIST on a fresh Debian 12 root
# and checks them, in three phases:
#   1. install-checks.sh  in the root (enter-root.sh): install, run as the unit
#                         does, build and serve out-of-tree plugins
#   2. boot-checks.sh     the root booted with systemd: the real unit
#   3. remove-checks.sh   in the root: remove, purge, nothing left behind
# Needs root. The base root (debootstrap plus a user's tools) is cached as a
# tarball; each run unpacks a new copy. Ends with "N passed, N failed".
set -eu
dist=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cache=${ENVHOST_PACKAGE_TEST_CACHE:-/var/cache/envhost-package-test}

[ "$(id -u)" -eq 0 ] || { echo "package-test: needs root (debootstrap, namespaces)" >&2; exit 1; }
ls "$dist"/*.deb >/dev/null 2>&1 || { echo "package-test: no .deb in $dist (make deb)" >&2; exit 1; }

# Named after the script that makes it, so changing the base makes a new one.
key=$(sha256sum "$here/base-root.sh" | cut -c1-16)
tarball=$cache/bookworm-$key.tar.gz
find "$cache" -maxdepth 1 -name 'bookworm-*.tar.gz' ! -name "bookworm-$key.tar.gz" -delete 2>/dev/null || true
"$here/base-root.sh" "$tarball"

scratch=$(mktemp -d "${TMPDIR:-/var/tmp}/envhost-package-test.XXXXXX")
# --one-file-system: never follow a mount out of the scratch tree.
# ENVHOST_PACKAGE_TEST_KEEP=1 keeps it to look into (enter-root.sh DIR bash).
if [ -z "${ENVHOST_PACKAGE_TEST_KEEP:-}" ]; then
    trap 'rm -rf --one-file-system "$scratch"' EXIT
fi
tar -C "$scratch" -xzf "$tarball"
cp /etc/resolv.conf "$scratch/etc/resolv.conf"
mkdir -p "$scratch/pkgtest/debs"
cp "$dist"/*.deb "$scratch/pkgtest/debs/"
cp -r "$here/plugin" "$here/lib.sh" "$here/run-unit.sh" "$here/install-checks.sh" \
    "$here/remove-checks.sh" "$scratch/pkgtest/"
results=$scratch/pkgtest/results
: >"$results"

# Phase 1 shares the host's network (apt needs it): take a free loopback port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

echo "package test in $scratch"
# Each phase runs only if the one before it got through.
if ! { timeout 900 "$here/enter-root.sh" "$scratch" /pkgtest/install-checks.sh "$port" &&
    timeout 300 "$here/boot-checks.sh" "$scratch" "$port" &&
    timeout 600 "$here/enter-root.sh" "$scratch" /pkgtest/remove-checks.sh; }; then
    echo "FAIL - a phase stopped early (see above)" | tee -a "$results"
fi

passed=$(grep -c '^ok - ' "$results" || true)
failed=$(grep -c '^FAIL - ' "$results" || true)
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
