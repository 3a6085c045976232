#!/bin/sh
# run-unit.sh UNIT: runs a service's ExecStart the way systemd would, for a
# root where systemd is not PID 1. Follows User=, Group=, UMask=,
# NoNewPrivileges=, an empty CapabilityBoundingSet= and Environment=; refuses
# what it cannot reproduce (ExecStart prefixes, several ExecStart lines).
set -eu
unit=$1

# The last assignment wins, as in systemd.
value() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }

[ "$(grep -c '^ExecStart=' "$unit")" -eq 1 ] || { echo "$unit: need one ExecStart" >&2; exit 2; }
exec_start=$(value ExecStart)
case $exec_start in
[-@:+!]*) echo "$unit: ExecStart prefix not supported: $exec_start" >&2; exit 2 ;;
esac

user=$(value User)
group=$(value Group)
[ -n "$user" ] || { echo "$unit: no User=" >&2; exit 2; }
set -- --reuid="$user" --regid="${group:-$user}" --init-groups
[ "$(value NoNewPrivileges)" = yes ] && set -- "$@" --no-new-privs
if grep -q '^CapabilityBoundingSet=$' "$unit"; then
    set -- "$@" --bounding-set=-all --inh-caps=-all
fi
umask_value=$(value UMask)
[ -z "$umask_value" ] || umask "$umask_value"
# shellcheck disable=SC2013 # unquoted VAR=value words only
for assignment in $(sed -n 's/^Environment=//p' "$unit"); do
    export "${assignment?}"
done

cd /
# shellcheck disable=SC2086 # ExecStart is split into words, as systemd does.
exec setpriv "$@" -- $exec_start
