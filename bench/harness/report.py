"""Turning raw results into the table, the goal checks and the plots."""

import json
import statistics
from pathlib import Path


def _get(result, path):
    for key in path.split("."):
        if not isinstance(result, dict) or key not in result:
            return None
        result = result[key]
    return result if isinstance(result, (int, float)) else None


def med(rounds, path):
    """Median of one figure over a side's rounds, failed rounds left out."""
    values = [v for r in rounds or [] for v in [_get(r, path)] if v is not None]
    return statistics.median(values) if values else None


def fmt(v, unit=""):
    if v is None:
        return "n/a"
    if abs(v) >= 1000:
        s = f"{v:,.0f}"
    elif abs(v) >= 10:
        s = f"{v:.1f}"
    elif 0 < abs(v) < 0.1:
        s = f"{v:.2g}"
    else:
        s = f"{v:.2f}"
    return s + unit


def ratio(a, b):
    return a / b if a is not None and b else None


def build_rows(res):
    """[(label, envhost, reference, envhost's advantage, floor, envhost / floor)]."""
    sc = res["scenarios"]
    rows = []

    def latency_rows(label, key, floors, pcts=("p50", "p99")):
        s = sc.get(key, {})
        for p in pcts:
            e, r = med(s.get("envhost"), f"{p}_us"), med(s.get("reference"), f"{p}_us")
            # The floor is the fastest bare server measured: the best this machine can do.
            fl = [v for name in floors for v in [med(s.get(name), f"{p}_us")] if v is not None]
            f = min(fl) if fl else None
            rows.append((f"{label} {p} (us)", e, r, ratio(r, e), f, ratio(e, f)))

    latency_rows("echo_env WS step RTT", "echo_step_latency", ("floor_epoll", "floor_poco"))
    for n, s in sc.get("echo_throughput", {}).items():
        e, r = med(s.get("envhost"), "steps_per_s"), med(s.get("reference"), "steps_per_s")
        floors = [x for x in (med(s.get("floor_epoll"), "steps_per_s"),
                              med(s.get("floor_poco"), "steps_per_s")) if x]
        f = max(floors) if floors else None
        rows.append((f"echo_env steps/s, {n} session(s)", e, r, ratio(e, r), f, ratio(e, f)))
    cap = sc.get("echo_capacity", {})
    e = _get(cap.get("envhost", {}), "max_sessions_passed")
    r = _get(cap.get("reference", {}), "max_sessions_passed")
    rows.append(("echo_env sessions held, >=99.9% steps ok", e, r, ratio(e, r), None, None))
    e, r = (_mem_per_session(cap.get(k, {})) for k in ("envhost", "reference"))
    rows.append(("echo_env memory per idle session (KiB)", e, r, ratio(r, e), None, None))
    s = sc.get("http_step", {})
    e, r = med(s.get("envhost"), "requests_per_s"), med(s.get("reference"), "requests_per_s")
    rows.append(("stateless HTTP /step req/s (echo_env)", e, r, ratio(e, r), None, None))
    # A coding step's floor is the whole path's: a bare WS echo of the same
    # bytes plus exec of the same snippet in-process.
    ws_floor = _fastest(sc.get("coding_print_latency", {}), "p50_us")
    pyf = sc.get("python_floor", {})
    for label, key, exec_key, pcts in (("coding_env print(1) RTT", "coding_print_latency", "print_exec", ("p50", "p99")),
                                       ("coding_env CPU-heavy step", "coding_cpu_latency", "cpu_exec", ("p50",))):
        s = sc.get(key, {})
        for p in pcts:
            e, r = med(s.get("envhost"), f"{p}_us"), med(s.get("reference"), f"{p}_us")
            ex = (pyf.get(exec_key) or {}).get("p50_us")
            f = ws_floor + ex if p == "p50" and ws_floor is not None and ex is not None else None
            rows.append((f"{label} {p} (us)", e, r, ratio(r, e), f, ratio(e, f)))
    latency_rows("coding_env session create", "coding_session_create", ("floor_epoll",))
    mem = sc.get("coding_idle_memory", {})
    e, r = (_get(mem.get(k, {}), "kib_per_session") for k in ("envhost", "reference"))
    rows.append(("coding_env memory per idle session (KiB)", e, r, ratio(r, e), None, None))
    return rows


def _fastest(scenario, path):
    """The lowest median among the floor servers measured in a scenario."""
    values = [v for name in ("floor_epoll", "floor_poco") for v in [med(scenario.get(name), path)]
              if v is not None]
    return min(values) if values else None


def _mem_per_session(cap):
    """KiB per session at the largest level whose sessions were all open."""
    base = (cap.get("baseline") or {}).get("pss_kib")
    full = [m for m in cap.get("memory", []) if m["held"] == m["sessions"] and m["held"] > 0]
    if base is None or not full:
        return None
    top = full[-1]
    return (top["pss_kib"] - base) / top["held"]


def table_text(rows, markdown=False):
    head = ("scenario", "envhost", "reference", "envhost advantage", "floor", "envhost / floor")
    body = [(l, fmt(e), fmt(r), fmt(a, "x"), fmt(f), fmt(x, "x")) for l, e, r, a, f, x in rows]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    widths = [max(len(str(r[i])) for r in [head] + body) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(head), "-" * (sum(widths) + 2 * len(widths))] + [line(r) for r in body])


def goals(res, rows):
    """The issue's four goals, each with the measured figure and a verdict."""
    by_label = {r[0]: r for r in rows}
    p50 = by_label.get("echo_env WS step RTT p50 (us)")
    tput = [r for r in rows if r[0].startswith("echo_env steps/s")]
    best_e = max((r[1] for r in tput if r[1]), default=None)
    best_r = max((r[2] for r in tput if r[2]), default=None)
    held = by_label.get("echo_env sessions held, >=99.9% steps ok")
    out = []

    def goal(name, value, target, ok):
        out.append({"goal": name, "measured": value, "target": target,
                    "met": None if value is None else bool(ok)})

    goal("echo step latency vs reference (p50, x lower)", p50 and p50[3], 10, p50 and p50[3] and p50[3] >= 10)
    r = ratio(best_e, best_r)
    goal("echo throughput vs reference (best over concurrency, x)", r, 20, r and r >= 20)
    goal("concurrent sessions held (>=99.9% steps ok)", held and held[1], 10000, held and held[1] and held[1] >= 10000)
    goal("echo step latency vs floor (p50, x floor)", p50 and p50[5], 2, p50 and p50[5] and p50[5] <= 2)
    return out


def goals_text(gs):
    lines = []
    for g in gs:
        verdict = {True: "MET", False: "NOT MET", None: "NOT MEASURED"}[g["met"]]
        lines.append(f"  {g['goal']:<58} {fmt(g['measured']):>10}  (goal {g['target']})  {verdict}")
    return "\n".join(lines)


# --- plots --------------------------------------------------------------------

COLORS = {"envhost": "tab:blue", "reference": "tab:red", "floor_epoll": "tab:gray",
          "floor_poco": "tab:olive"}


def plots(res, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    made = []
    samples = out_dir / "samples"
    for tag, title in (("echo_step_latency", "echo_env: WebSocket step round trip, one session"),
                       ("coding_print_latency", "coding_env: print(1) step round trip, one session"),
                       ("coding_session_create", "coding_env: connect to first observation")):
        fig, ax = plt.subplots(figsize=(8, 4.5))
        drawn = False
        for side in COLORS:
            values = []
            for f in sorted(samples.glob(f"{tag}.{side}.*.txt")):
                values += [float(x) for x in f.read_text().split()]
            if not values:
                continue
            values.sort()
            ys = [(i + 1) / len(values) for i in range(len(values))]
            ax.plot(values, ys, label=f"{side} (n={len(values)})", color=COLORS[side])
            drawn = True
        if not drawn:
            plt.close(fig)
            continue
        ax.set_xscale("log")
        ax.set_xlabel("round-trip time (us, log scale)")
        ax.set_ylabel("fraction of steps at or below")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = out_dir / f"{tag}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path.name)

    tp = res["scenarios"].get("echo_throughput", {})
    if tp:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        levels = sorted(int(n) for n in tp)
        for side in COLORS:
            xs, ys, lo, hi = [], [], [], []
            for n in levels:
                vals = [v for r in tp[str(n)].get(side, []) for v in [_get(r, "steps_per_s")] if v]
                if vals:
                    xs.append(n)
                    ys.append(statistics.median(vals))
                    lo.append(ys[-1] - min(vals))
                    hi.append(max(vals) - ys[-1])
            if xs:
                ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=side, color=COLORS[side])
        ax.set_xscale("log", base=2)
        ax.set_xticks(levels, [str(n) for n in levels])
        ax.set_yscale("log")
        ax.set_xlabel("concurrent WebSocket sessions")
        ax.set_ylabel("steps per second (median, min-max bars)")
        ax.set_title("echo_env: aggregate step throughput against concurrency")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out_dir / "echo_throughput.png", dpi=110)
        plt.close(fig)
        made.append("echo_throughput.png")

    cap = res["scenarios"].get("echo_capacity", {})
    if cap:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
        for side in ("envhost", "reference"):
            c = cap.get(side) or {}
            lv = c.get("levels", [])
            if lv:
                a1.plot([l["sessions"] for l in lv], [100 * l["success_ratio"] for l in lv],
                        marker="o", label=side, color=COLORS[side])
            mem = c.get("memory", [])
            base = (c.get("baseline") or {}).get("pss_kib", 0)
            if mem:
                a2.plot([m["held"] for m in mem], [(m["pss_kib"] - base) / 1024 for m in mem],
                        marker="o", label=side, color=COLORS[side])
        lowest = min([100.0] + [100 * l["success_ratio"] for c in cap.values() if c
                                for l in c.get("levels", [])])
        a1.set_ylim(max(0.0, min(99.0, lowest - 1)), 100.3)
        a1.axhline(99.9, color="black", linestyle="--", linewidth=0.8, label="99.9 %")
        a1.set_xscale("log")
        a1.set_xlabel("concurrent sessions")
        a1.set_ylabel("steps succeeding (%)")
        a1.set_title("echo_env: session ramp")
        a1.legend()
        a1.grid(True, which="both", alpha=0.3)
        a2.set_xlabel("sessions open")
        a2.set_ylabel("server memory above idle (PSS, MiB)")
        a2.set_title("echo_env: memory while sessions are held")
        a2.legend()
        a2.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(out_dir / "echo_capacity.png", dpi=110)
        plt.close(fig)
        made.append("echo_capacity.png")
    return made


def loadgen_check(res):
    """Was the generator the bottleneck? Its CPU against the server's, per run."""
    out = {}
    for n, sides in res["scenarios"].get("echo_throughput", {}).items():
        for side, rounds in sides.items():
            lg, srv = med(rounds, "loadgen_cpu"), med(rounds, "server_cpu")
            out.setdefault(side, {})[n] = {"loadgen_cores": lg, "server_cores": srv}
    return out


def loadgen_text(check):
    lines = []
    for side, levels in check.items():
        parts = [f"{n}: gen {fmt(v['loadgen_cores'])} / server {fmt(v['server_cores'])}"
                 for n, v in levels.items()]
        lines.append(f"  {side:<12} " + "; ".join(parts))
    return "\n".join(lines)


def write_all(res, out_dir):
    rows = build_rows(res)
    res["table"] = [dict(zip(("scenario", "envhost", "reference", "envhost_advantage", "floor",
                              "envhost_over_floor"), r)) for r in rows]
    res["goals"] = goals(res, rows)
    res["loadgen_check"] = loadgen_check(res)
    res["plots"] = plots(res, out_dir)
    Path(out_dir, "results.json").write_text(json.dumps(res, indent=1))
    Path(out_dir, "table.md").write_text(table_text(rows, markdown=True) + "\n")
    return (table_text(rows) + "\n\nGoals:\n" + goals_text(res["goals"]) +
            "\n\nCPU in cores (1.0 = one core busy) during the throughput runs, by session count:\n" +
            loadgen_text(res["loadgen_check"]))
