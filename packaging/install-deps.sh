#!/bin/sh
# The Debian packages that building the .debs (dpkg-shlibdeps, file) and the
# package test (debootstrap, systemd-nspawn) need.
exec "$(dirname "$0")/../scripts/apt-install-missing.sh" dpkg-dev file debootstrap systemd-container
