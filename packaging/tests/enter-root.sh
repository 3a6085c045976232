#!/bin/sh
# enter-root.sh ROOT COMMAND...: runs COMMAND with ROOT as the whole system.
#
# A private mount and pid namespace is made whose root is ROOT by pivot_root,
# not chroot: the kernel refuses new user namespaces to chrooted processes, and
# coding_env's sandbox needs them. /proc, /dev and /sys are mounted inside
# that namespace only, so they vanish with it; nothing stays mounted on the
# host, and every process started inside dies when COMMAND ends.
set -eu

if [ "${1:-}" != "--inside" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 ROOT COMMAND..." >&2; exit 2; }
    root=$(realpath "$1"); shift
    exec unshare --mount --pid --fork --propagation private -- "$0" --inside "$root" "$@"
fi

root=$2; shift 2
mount --bind "$root" "$root"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
mount -t proc proc "$root/proc"     # this pid namespace's; umount reads it below
mount -t tmpfs tmpfs "$root/run"
cd "$root"
pivot_root . .                      # the old root now sits on top of the new one
umount -l .
cd /
mkdir -p /run/lock
exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
    DEBIAN_FRONTEND=noninteractive "$@"
