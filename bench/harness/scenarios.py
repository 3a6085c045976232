"""The scenarios of issue 6, each run against every side it applies to.

A "side" is one server under test (envhost, the reference, a floor) with its
URLs. Repeated scenarios run the sides alternately (A B, B A, ...) so that a
slow spell of this shared machine does not land on one side only; the report
takes medians over rounds.
"""

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import loadgen

ECHO_STEP = {"type": "call_tool", "tool_name": "echo_message", "arguments": {"message": "hi"}}
CODE_PRINT = "print(1)"
# CPU-bound, and valid for both CPython and smolagents' interpreter.
CODE_CPU = "total = 0\nfor i in range(20000):\n    total += i * i % 7\nprint(total)"


def ws_step(action):
    return json.dumps({"type": "step", "data": action}, separators=(",", ":"))


@dataclass
class Side:
    name: str
    server: object        # servers.Server (None for in-process floors)
    ws_url: str = ""
    http_step_url: str = ""
    extra: dict = field(default_factory=dict)


@dataclass
class Bench:
    loadgen: str          # path to envhost-loadgen
    out: Path             # results directory
    python: str           # interpreter for the in-process floors
    floor_script: str
    rounds: int = 3
    quick: bool = False

    def lg(self, mode, side, on_event=None, **options):
        return loadgen.run(self.loadgen, mode, side.ws_url if mode != "http" else side.http_step_url,
                           on_event=on_event, server=side.server, **options)

    def samples(self, tag, side, rnd):
        d = self.out / "samples"
        d.mkdir(exist_ok=True)
        return str(d / f"{tag}.{side.name}.{rnd}.txt")


def alternate(bench, sides, run_one):
    """Runs run_one(side, round) for every side, `bench.rounds` times, alternating order."""
    results = {s.name: [] for s in sides}
    for rnd in range(bench.rounds):
        order = sides if rnd % 2 == 0 else list(reversed(sides))
        for side in order:
            try:
                results[side.name].append(run_one(side, rnd))
            except Exception as exc:  # a failed run is a figure too: keep going
                results[side.name].append({"failure": str(exc)})
            print(f"    {side.name:<12} round {rnd + 1}: {_brief(results[side.name][-1])}", flush=True)
    return results


def _brief(r):
    if "failure" in r and len(r) <= 2:
        return "FAILED " + r["failure"][:120]
    for key in ("p50_us", "steps_per_s", "requests_per_s"):
        if key in r:
            extra = f" p99={r['p99_us']:.0f}us" if key == "p50_us" and "p99_us" in r else ""
            return f"{key}={r[key]:.1f}{extra}" + (f" FAILURE {r['failure'][:80]}" if "failure" in r else "")
    return str(r)[:120]


# --- echo_env -----------------------------------------------------------------

def step_latency(bench, sides, tag, action, requests, warmup):
    """One session, sequential steps: round-trip time distribution."""
    def one(side, rnd):
        n = requests[side.name] if isinstance(requests, dict) else requests
        return bench.lg("latency", side, step=ws_step(action), requests=n, warmup=warmup,
                        samples_out=bench.samples(tag, side, rnd), max_s=180)
    return alternate(bench, sides, one)


def throughput(bench, sides, levels, duration_s):
    """Closed-loop steps from N sessions at once: aggregate steps per second."""
    out = {}
    for n in levels:
        print(f"  {n} sessions", flush=True)
        out[str(n)] = alternate(bench, sides, lambda side, rnd: bench.lg(
            "throughput", side, step=ws_step(ECHO_STEP), conns=n, duration_s=duration_s,
            warmup_s=1.0, max_s=120))
    return out


def http_step(bench, sides, conns, duration_s):
    """Stateless POST /step: each request gets a fresh env, as the protocol says."""
    body = json.dumps({"action": ECHO_STEP}, separators=(",", ":"))
    return alternate(bench, sides, lambda side, rnd: bench.lg(
        "http", side, step=body, conns=conns, duration_s=duration_s, warmup_s=1.0))


def capacity(bench, side, levels, max_s):
    """Ramp held sessions until fewer than 99.9 % of steps succeed (time-bounded).

    Server memory (PSS) and thread count are sampled each time a level's
    sessions are all open, for memory per idle echo session.
    """
    side.server.start()
    warm(bench, side)
    time.sleep(1)
    base = {"pss_kib": side.server.pss_kib(), "threads": side.server.threads()}
    samples = []

    def on_event(event):
        if event.get("event") == "held":
            samples.append({"sessions": event["sessions"], "held": event["held"],
                            "pss_kib": side.server.pss_kib(), "threads": side.server.threads()})
            print(f"    {side.name}: {event['held']}/{event['sessions']} sessions open, "
                  f"PSS {samples[-1]['pss_kib'] / 1024:.0f} MiB, {samples[-1]['threads']} threads",
                  flush=True)
        elif event.get("event") == "level":
            r = event["result"]
            print(f"    {side.name}: level {r['sessions']}: {r['success_ratio'] * 100:.2f} % of steps ok"
                  f" (open {r['open_s']:.1f}s)", flush=True)

    try:
        result = bench.lg("capacity", side, on_event=on_event, step=ws_step(ECHO_STEP),
                          levels=",".join(map(str, levels)), steps_per_level=2, think_s=2.0,
                          step_timeout_s=30, level_timeout_s=60, max_pending=256, max_s=max_s)
    except Exception as exc:
        result = {"failure": str(exc), "levels": [], "max_sessions_passed": 0}
    result["server_alive_after"] = side.server.alive()
    side.server.stop()
    result["baseline"] = base
    result["memory"] = samples
    return result


def warm(bench, side, count=3):
    """A few sessions opened and closed, so lazy start-up costs are paid."""
    try:
        bench.lg("connect", side, requests=count, warmup=0, max_s=60)
    except loadgen.LoadgenError:
        pass


# --- coding_env ---------------------------------------------------------------

def session_create(bench, sides, requests):
    """Connect, upgrade, reset: time to the first observation; then close."""
    return alternate(bench, sides, lambda side, rnd: bench.lg(
        "connect", side, requests=requests, warmup=3, max_s=120,
        samples_out=bench.samples("coding_session_create", side, rnd)))


def idle_memory(bench, side, sessions):
    """PSS growth of a fresh server per idle session (opened, reset, then left alone)."""
    side.server.start()
    warm(bench, side)
    time.sleep(1)
    base = side.server.pss_kib()
    held = {}

    def on_event(event):
        if event.get("event") == "held":
            time.sleep(1)  # let the server settle after the burst of resets
            held.update(sessions=event["held"], pss_kib=side.server.pss_kib(),
                        threads=side.server.threads())

    try:
        result = bench.lg("hold", side, on_event=on_event, conns=sessions, hold_s=3,
                          level_timeout_s=120, max_pending=32)
    except Exception as exc:
        result = {"failure": str(exc)}
    side.server.stop()
    result["baseline_pss_kib"] = base
    result.update({f"held_{k}": v for k, v in held.items()})
    if held.get("sessions"):
        result["kib_per_session"] = (held["pss_kib"] - base) / held["sessions"]
    return result


def python_floor(bench, code, executor, requests, warmup=20):
    """In-process execution of the same snippet, no server at all."""
    out = subprocess.run([bench.python, bench.floor_script, "--code", code, "--executor", executor,
                          "--requests", str(requests), "--warmup", str(warmup)],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        return {"failure": out.stderr.strip()[-300:]}
    return json.loads(out.stdout)
