#!/bin/sh
# base-root.sh TARBALL: makes TARBALL, a clean Debian 12 root with the tools a
# user would bring to build and run a plugin, unless it already exists.
#
# Only the tools are in it (compiler, cmake, pkg-config, curl, man-db, systemd for
# systemd-analyze); everything envhost itself needs must come from the
# packages' dependencies. The caller names TARBALL after this file's hash, so
# a change here makes a fresh one.
set -eu
tarball=$1
MIRROR=${ENVHOST_DEBIAN_MIRROR:-http://deb.debian.org/debian}
TOOLS="systemd man-db g++ cmake make pkg-config curl"
here=$(cd "$(dirname "$0")" && pwd)

[ -s "$tarball" ] && exit 0
command -v debootstrap >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
}

mkdir -p "$(dirname "$tarball")"
work=$(mktemp -d "$(dirname "$tarball")/base.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT
echo "debootstrap bookworm into $work/root"
debootstrap --variant=minbase bookworm "$work/root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
    tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

cat >"$work/root/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
SOURCES
# No recommends: a user's apt has them on, but the packages must work without.
echo 'APT::Install-Recommends "false";' >"$work/root/etc/apt/apt.conf.d/90no-recommends"

"$here/enter-root.sh" "$work/root" sh -euc "
    apt-get update -qq
    apt-get install -y -qq $TOOLS >/dev/null
    apt-get clean
    rm -rf /var/lib/apt/lists/*"

tar -C "$work/root" -czf "$work/base.tar.gz" .
mv "$work/base.tar.gz" "$tarball"
echo "base root cached in $tarball"
