#!/usr/bin/env python3
"""Tiny timing probe for coding_env behind a running envhost (not a test).

    .venv/bin/python plugins/coding/tools/timing.py ws://127.0.0.1:8000/ws [n]

Prints p50/p90 of: connect + reset (connect-to-first-observation), a
print(1) step round trip, and the PSS of the idle sandboxes (root only).
"""
import json
import os
import statistics
import sys
import time

from websockets.sync.client import connect

url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8000/ws"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000


connects, steps = [], []
for i in range(max(n // 10, 20)):
    t = time.perf_counter()
    ws = connect(url, max_size=None, compression=None)
    ws.send(json.dumps({"type": "reset", "data": {}}))
    json.loads(ws.recv())
    connects.append(time.perf_counter() - t)
    ws.send(json.dumps({"type": "close"}))
    ws.close()
    time.sleep(0.03)  # let the pool refill: measure the warm path

ws = connect(url, max_size=None, compression=None)
ws.send(json.dumps({"type": "reset", "data": {}}))
ws.recv()
msg = json.dumps({"type": "step", "data": {"code": "print(1)"}})
for _ in range(n):
    t = time.perf_counter()
    ws.send(msg)
    r = json.loads(ws.recv())
    steps.append(time.perf_counter() - t)
    assert r["data"]["observation"]["stdout"] == "1\n", r
print(f"connect+reset  p50 {pct(connects, .5):.2f} ms  p90 {pct(connects, .9):.2f} ms  (n={len(connects)})")
print(f"print(1) step  p50 {pct(steps, .5):.3f} ms  p90 {pct(steps, .9):.3f} ms  (n={len(steps)})")

# PSS of every driver process (python3 -I -B -c ... of coding_env), if readable.
pss = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        if len(cmd) > 4 and cmd[1:4] == [b"-I", b"-B", b"-c"] and b"coding_env driver" in cmd[4]:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    pss.append(int(line.split()[1]))
    except OSError:
        pass
if pss:
    print(f"idle interpreter PSS: mean {statistics.mean(pss) / 1024:.1f} MiB over {len(pss)} processes")
ws.close()
