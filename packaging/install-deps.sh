#!/bin/sh
# Installs the Debian packages that building the .debs (dpkg-shlibdeps, file)
# and the package test (debootstrap, systemd-nspawn) need. Only what is
# missing; needs root.
set -eu
PKGS="dpkg-dev file debootstrap systemd-container"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
