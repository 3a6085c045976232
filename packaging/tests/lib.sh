# lib.sh: what the package test's phases share (sourced, not run).
#
# Each check appends "ok - ..." or "FAIL - ..." to $RESULTS, which
# package-test.sh counts at the end. $IN prefixes commands that must run
# inside the system under test (empty when the phase already runs there).
# shellcheck shell=sh disable=SC2317 # check functions are called through check()
: "${RESULTS:?}" "${PORT:?}"
IN=${IN:-}

check() { # check DESCRIPTION COMMAND...: runs COMMAND, shows its output if it fails
    desc=$1; shift
    if "$@" >"$RESULTS.out" 2>&1; then
        echo "ok - $desc" | tee -a "$RESULTS"
    else
        echo "FAIL - $desc" | tee -a "$RESULTS"
        tail -n 25 "$RESULTS.out" | sed 's/^/    /'
        return 1
    fi
}
must() { # like check, but the rest of the phase makes no sense without it
    check "$@" || exit 1
}

# Every path outside the scratch areas, and the accounts: taken before install
# and after purge, the two must be equal.
snapshot() {
    find / -xdev \( -path /pkgtest -o -path /tmp -o -path /root -o -path /var/cache \
        -o -path /var/lib/apt/lists -o -path /var/lib/dpkg -o -path /var/log \) -prune -o -print \
        | sort >"$1"
    cut -d: -f1 /etc/passwd | sed 's/^/user:/' >>"$1"
    cut -d: -f1 /etc/group | sed 's/^/group:/' >>"$1"
}

http() { $IN curl -fsS --max-time 10 "http://127.0.0.1:$PORT$1"; }
post() {
    $IN curl -fsS --max-time 30 -H 'Content-Type: application/json' -d "$2" "http://127.0.0.1:$PORT$1"
}
healthy() { http /health | grep -q '"status" *: *"healthy"'; }
wait_healthy() { # wait_healthy PID: until /health answers, or PID is gone
    for _ in $(seq 100); do
        healthy 2>/dev/null && return 0
        [ -z "${1:-}" ] || kill -0 "$1" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}
serves() { # serves ENV...: /envs lists every ENV
    envs=$(http /envs) || return 1
    for e in "$@"; do
        echo "$envs" | grep -q "\"$e\"" || { echo "$e missing from /envs: $envs"; return 1; }
    done
}
step() { # step ENV ACTION EXPECTED: a stateless HTTP step whose reply contains EXPECTED
    reply=$(post "/envs/$1/step" "{\"action\": $2}") || return 1
    echo "$reply" | grep -qF "$3" || { echo "no '$3' in: $reply"; return 1; }
}
