#!/bin/sh
# remove-checks.sh: phase 3 of the package test, run as root inside the clean
# root after phases 1 and 2. Removes, then purges the packages and their
# dependencies, and compares the root with the snapshot phase 1 took.
set -u
T=/pkgtest
# shellcheck disable=SC2034 # both are read by lib.sh
PORT=0 RESULTS=$T/results
# shellcheck source=lib.sh
. "$T/lib.sh"


packages=$(dpkg-query -W -f '${Package}\n' 'envhost*')
# The admin's own plugins stay on removal: take them away first, as an admin would.
rm -f /usr/local/lib/envhost/plugins/greet_cmake.so /usr/local/lib/envhost/plugins/greet_pkgconfig.so

# shellcheck disable=SC2086
check "apt removes the packages" apt-get remove -y -q $packages
check "removal keeps the configuration" test -f /etc/envhost/envhost.json
check "removal takes the binary" test ! -e /usr/bin/envhost
# dpkg, as apt no longer knows packages that were installed from files.
# shellcheck disable=SC2086
check "dpkg purges the packages" dpkg --purge $packages
check "apt autoremoves their dependencies" apt-get autoremove --purge -y -q
snapshot /tmp/after
check "purge leaves nothing behind" diff "$T/before" /tmp/after
exit 0 # failed checks are counted by package-test.sh
