#!/bin/sh
# Installs the Debian packages envhost needs to build, run and test.
# Only what is missing is installed; needs root (or sudo) when something is.
set -eu
PKGS="cmake ninja-build g++ make pkg-config python3 python3-venv
libpoco-dev nlohmann-json3-dev libboost-dev libboost-filesystem-dev
libspdlog-dev libvalijson-dev libgtest-dev libgmock-dev"
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
