#!/usr/bin/env bash
# `make bench`: venv, native build, then the benchmark (arguments pass through,
# e.g. `bench/run.sh --quick`). Results land in bench/results/<time>/.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VENV=${BENCH_VENV:-$ROOT/bench/.venv}
PYTHON=${PYTHON:-/usr/bin/python3}

# The reference server and the plotting, from PyPI.
if [ ! -f "$VENV/.stamp" ] || [ "$ROOT/bench/requirements.txt" -nt "$VENV/.stamp" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/bench/requirements.txt"
  touch "$VENV/.stamp"
fi

# The load generator and the floor servers, in the project's build tree; on
# their own if the project does not configure (the benchmark then measures
# the reference and the floors only).
TARGETS="envhost-loadgen ws-echo-epoll ws-echo-poco"
if cmake -S "$ROOT" -B "$BUILD" -G Ninja -DENVHOST_BUILD_BENCH=ON >/dev/null; then
  BENCH_BIN=$BUILD/bench
  cmake --build "$BUILD" --target $TARGETS
else
  echo "run.sh: the project does not configure; building bench/ on its own" >&2
  cmake -S "$ROOT/bench" -B "$BUILD/bench-standalone" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  BENCH_BIN=$BUILD/bench-standalone/bench
  cmake --build "$BUILD/bench-standalone" --target $TARGETS
fi

# 10k+ sockets on each side; this sandbox caps the hard limit (20000 here).
ulimit -n "$(ulimit -Hn)"
cd "$ROOT/bench"
exec "$VENV/bin/python" bench.py --build "$BUILD" --bench-bin "$BENCH_BIN" "$@"
