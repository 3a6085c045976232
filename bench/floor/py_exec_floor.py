"""The floor for a coding_env step: run the same snippet in-process, no server.

  python py_exec_floor.py --code CODE [--executor exec|smolagents] [--requests N] [--warmup N]

`exec` is plain CPython: compile and exec in a namespace that persists across
steps, stdout captured, as a warm per-session interpreter would do. It is the
physical floor for envhost's coding_env. `smolagents` is the reference's AST
interpreter (LocalPythonExecutor), i.e. the floor of the reference server.
Prints one JSON object with the same summary fields as the load generator.
"""

import argparse
import contextlib
import io
import json
import math
import time


def exec_runner():
    namespace = {"__name__": "__main__"}

    def run(code):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<step>", "exec"), namespace)
        return out.getvalue()

    return run


def smolagents_runner():
    from smolagents import LocalPythonExecutor

    executor = LocalPythonExecutor(additional_authorized_imports=[])
    executor.send_tools({})
    return lambda code: executor(code).logs


def summary(samples_ns):
    s = sorted(samples_ns)

    def pct(p):
        return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))] / 1000.0

    return {"count": len(s), "mean_us": sum(s) / len(s) / 1000.0, "p50_us": pct(50),
            "p90_us": pct(90), "p99_us": pct(99), "p999_us": pct(99.9), "max_us": s[-1] / 1000.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", required=True)
    ap.add_argument("--executor", choices=["exec", "smolagents"], default="exec")
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=50)
    args = ap.parse_args()
    run = exec_runner() if args.executor == "exec" else smolagents_runner()
    samples = []
    for i in range(args.warmup + args.requests):
        t0 = time.perf_counter_ns()
        run(args.code)
        if i >= args.warmup:
            samples.append(time.perf_counter_ns() - t0)
    print(json.dumps(summary(samples)))


if __name__ == "__main__":
    main()
