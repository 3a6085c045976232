"""envhost against OpenEnv's Python server, same machine, same run, same work.

Started by bench/run.sh (`make bench`), which builds the native parts, makes
the venv and raises the open-files limit. This script starts the servers on
loopback, runs every scenario against both (alternating), and writes
results.json, table.md and the plots into the results directory.
"""

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from harness import machine, report, scenarios
from harness.scenarios import Bench, Side
from harness.servers import Server

HERE = Path(__file__).resolve().parent
PORTS = {"envhost": 18100, "reference_echo": 18200, "reference_coding": 18201,
         "floor_epoll": 18300, "floor_poco": 18301}
CAPACITY_LEVELS = [100, 500, 1000, 2000, 4000, 6000, 8000, 10000, 12000, 15000, 19000]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(HERE.parent / "build"), help="CMake build directory")
    ap.add_argument("--bench-bin", default=None, help="where envhost-loadgen and the floors are (default BUILD/bench)")
    ap.add_argument("--out", default=None, help="results directory (default bench/results/<time>)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one short round of everything (a smoke test)")
    ap.add_argument("--workers", default="1,2,4", help="uvicorn worker counts to try for the reference")
    ap.add_argument("--skip-capacity", action="store_true")
    return ap.parse_args()


class Servers:
    """Builds every server the run needs; none is started until asked."""

    def __init__(self, build, out, bench_bin):
        self.build, self.out = Path(build), out
        envhost = self.build / "host" / "envhost"
        plugins = self.build / "plugins"
        self.has_envhost = envhost.exists() and (plugins / "echo_env.so").exists()
        self.has_envhost_coding = self.has_envhost and (plugins / "coding_env.so").exists()
        config = out / "envhost.json"
        # Concurrency raised to what the scenarios need; idle reaping off.
        config.write_text(json.dumps({
            "environments": {"echo_env": {"max_sessions": 20000, "idle_timeout_s": 0},
                             "coding_env": {"max_sessions": 256}},
            "max_message_bytes": 1048576}))
        self.envhost_argv = [str(envhost), "--plugin-dir", str(plugins), "--host", "127.0.0.1",
                             "--port", str(PORTS["envhost"]), "--config", str(config)]
        self.bench_bin = Path(bench_bin) if bench_bin else self.build / "bench"

    def envhost(self):
        return Server("envhost", self.envhost_argv, PORTS["envhost"], self.out,
                      health_path=["/envs/echo_env/health", "/health"])

    def reference(self, env_name, workers, max_sessions):
        port = PORTS["reference_echo" if env_name == "echo_env" else "reference_coding"]
        argv = [sys.executable, "-m", "uvicorn", "app:app", "--app-dir", str(HERE / "reference"),
                "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
                "--log-level", "warning"]
        return Server(f"reference_{env_name}_w{workers}", argv, port, self.out,
                      env={"BENCH_ENV": env_name, "BENCH_MAX_SESSIONS": str(max_sessions)})

    def floor(self, kind):
        binary = self.bench_bin / ("ws-echo-epoll" if kind == "floor_epoll" else "ws-echo-poco")
        return Server(kind, [str(binary), str(PORTS[kind])], PORTS[kind], self.out, health_path=None)


def envhost_side(servers, env_name, server):
    base = f"127.0.0.1:{PORTS['envhost']}/envs/{env_name}"
    return Side("envhost", server, f"ws://{base}/ws", f"http://{base}/step")


def reference_side(server):
    base = f"127.0.0.1:{server.port}"
    return Side("reference", server, f"ws://{base}/ws", f"http://{base}/step")


def floor_side(server):
    return Side(server.name, server, f"ws://127.0.0.1:{server.port}/ws")


def calibrate_workers(bench, servers, counts, duration_s):
    """The reference's best uvicorn worker count on this machine (echo_env, 64 sessions)."""
    figures = {}
    for w in counts:
        srv = servers.reference("echo_env", w, 20000).start()
        side = reference_side(srv)
        scenarios.warm(bench, side)
        try:
            r = bench.lg("throughput", side, step=scenarios.ws_step(scenarios.ECHO_STEP), conns=64,
                         duration_s=duration_s, warmup_s=1.0, max_s=60)
            figures[str(w)] = r["steps_per_s"]
        except Exception as exc:
            figures[str(w)] = None
            print(f"    workers={w}: failed: {exc}")
        srv.stop()
        print(f"    workers={w}: {figures[str(w)]} steps/s", flush=True)
    best = max((w for w in figures if figures[w]), key=lambda w: figures[w], default=str(counts[0]))
    return {"steps_per_s_at_64_sessions": figures, "chosen": int(best)}


def main():
    args = parse_args()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = Path(args.out) if args.out else HERE / "results" / stamp
    out.mkdir(parents=True, exist_ok=True)
    latest = HERE / "results" / "latest"
    if not args.out:
        latest.unlink(missing_ok=True)
        latest.symlink_to(out.name)
    rounds = 1 if args.quick else args.rounds
    dur = 1.0 if args.quick else 3.0
    servers = Servers(args.build, out, args.bench_bin)
    bench = Bench(loadgen=str(servers.bench_bin / "envhost-loadgen"), out=out, python=sys.executable,
                  floor_script=str(HERE / "floor" / "py_exec_floor.py"), rounds=rounds, quick=args.quick)
    res = {"started": stamp, "machine": machine.describe(HERE.parent, sys.executable),
           "settings": {"rounds": rounds, "throughput_duration_s": dur, "quick": args.quick},
           "scenarios": {}}
    sc = res["scenarios"]
    t_start = time.monotonic()
    if not servers.has_envhost:
        print("!! envhost (build/host/envhost with build/plugins/echo_env.so) is missing: "
              "only the reference and the floors are measured", flush=True)

    print("== calibrating the reference's uvicorn worker count", flush=True)
    counts = [int(w) for w in args.workers.split(",")]
    res["calibration"] = calibrate_workers(bench, servers, counts[:1] if args.quick else counts, dur)
    workers = res["calibration"]["chosen"]
    res["settings"]["reference_workers"] = workers
    print(f"   using {workers} worker(s)", flush=True)

    envhost = servers.envhost() if servers.has_envhost else None
    ref_echo = servers.reference("echo_env", workers, 20000)
    f_epoll, f_poco = servers.floor("floor_epoll"), servers.floor("floor_poco")
    started = [s.start() for s in (envhost, ref_echo, f_epoll, f_poco) if s]
    try:
        echo_sides = ([envhost_side(servers, "echo_env", envhost)] if envhost else []) + [reference_side(ref_echo)]
        floors = [floor_side(f_epoll), floor_side(f_poco)]
        for side in echo_sides:
            scenarios.warm(bench, side)

        print("== echo_env: step round trip, one session", flush=True)
        n = 500 if args.quick else 5000
        sc["echo_step_latency"] = scenarios.step_latency(
            bench, echo_sides + floors, "echo_step_latency", scenarios.ECHO_STEP,
            {"envhost": n, "reference": n // 5, "floor_epoll": n, "floor_poco": n}, warmup=200)

        print("== echo_env: aggregate throughput against concurrency", flush=True)
        sc["echo_throughput"] = scenarios.throughput(bench, echo_sides + floors, [1, 16, 64, 256], dur)

        print("== echo_env: stateless HTTP POST /step", flush=True)
        sc["http_step"] = scenarios.http_step(bench, echo_sides, conns=16, duration_s=dur)
    finally:
        if ref_echo:
            ref_echo.stop()

    ref_coding = servers.reference("coding_env", workers, 256)
    try:
        ref_coding.start()
        coding_sides = [reference_side(ref_coding)]
        if servers.has_envhost_coding:
            coding_sides.insert(0, envhost_side(servers, "coding_env", envhost))
        else:
            print("!! build/plugins/coding_env.so is missing: coding_env measured on the reference only")
        for side in coding_sides:
            scenarios.warm(bench, side)

        print("== coding_env: print(1) round trip", flush=True)
        n = 200 if args.quick else 2000
        sc["coding_print_latency"] = scenarios.step_latency(
            bench, coding_sides + floors, "coding_print_latency", {"code": scenarios.CODE_PRINT},
            {"envhost": n, "reference": n // 2, "floor_epoll": n, "floor_poco": n}, warmup=50)
        print("== coding_env: CPU-heavy snippet", flush=True)
        sc["coding_cpu_latency"] = scenarios.step_latency(
            bench, coding_sides, "coding_cpu_latency", {"code": scenarios.CODE_CPU},
            {"envhost": 10 if args.quick else 40, "reference": 5 if args.quick else 15}, warmup=3)
        print("== coding_env: session creation (connect to first observation)", flush=True)
        sc["coding_session_create"] = scenarios.session_create(
            bench, coding_sides + [floors[0]], requests=20 if args.quick else 60)

        print("== floors: the same snippets exec'd in-process", flush=True)
        sc["python_floor"] = {
            "print_exec": scenarios.python_floor(bench, scenarios.CODE_PRINT, "exec", 2000),
            "print_smolagents": scenarios.python_floor(bench, scenarios.CODE_PRINT, "smolagents", 500),
            "cpu_exec": scenarios.python_floor(bench, scenarios.CODE_CPU, "exec", 50, warmup=3),
            "cpu_smolagents": scenarios.python_floor(bench, scenarios.CODE_CPU, "smolagents", 10, warmup=2),
        }
        print("   " + json.dumps({k: v.get("p50_us") for k, v in sc["python_floor"].items()}), flush=True)
    finally:
        for s in started + [ref_coding]:
            s.stop()

    print("== coding_env: memory per idle session (fresh servers)", flush=True)
    idle = 20 if args.quick else 100
    sc["coding_idle_memory"] = {}
    if servers.has_envhost_coding:
        sc["coding_idle_memory"]["envhost"] = scenarios.idle_memory(
            bench, envhost_side(servers, "coding_env", servers.envhost()), idle)
    sc["coding_idle_memory"]["reference"] = scenarios.idle_memory(
        bench, reference_side(servers.reference("coding_env", workers, 256)), idle)
    for k, v in sc["coding_idle_memory"].items():
        print(f"    {k}: {v.get('kib_per_session')} KiB/session ({v.get('held_sessions')} held)", flush=True)

    if not args.skip_capacity:
        print("== echo_env: most sessions held with >= 99.9 % of steps ok (fresh servers)", flush=True)
        levels = [100, 500, 1000] if args.quick else CAPACITY_LEVELS
        max_s = 60 if args.quick else 240
        sc["echo_capacity"] = {}
        if servers.has_envhost:
            sc["echo_capacity"]["envhost"] = scenarios.capacity(
                bench, envhost_side(servers, "echo_env", servers.envhost()), levels, max_s)
        sc["echo_capacity"]["reference"] = scenarios.capacity(
            bench, reference_side(servers.reference("echo_env", workers, 20000)), levels, max_s)

    res["elapsed_s"] = round(time.monotonic() - t_start, 1)
    res["machine"]["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
    text = report.write_all(res, out)
    print("\n" + text)
    print(f"\nresults: {out}/results.json, table.md, plots: {', '.join(res['plots'])}"
          f"  ({res['elapsed_s']:.0f} s)")


if __name__ == "__main__":
    main()
