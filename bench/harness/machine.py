"""What the figures were measured on: machine, software versions, commit."""

import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path


def _run(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        return ""


def describe(repo, python):
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), "unknown")
    mem_kib = int(next(l.split()[1] for l in Path("/proc/meminfo").read_text().splitlines()
                       if l.startswith("MemTotal")))
    packages = {}
    for name in ("openenv-core", "fastapi", "starlette", "uvicorn", "uvloop", "httptools", "websockets",
                 "pydantic", "fastmcp", "smolagents", "matplotlib"):
        try:
            packages[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            packages[name] = None
    debian = Path("/etc/debian_version").read_text().strip() if Path("/etc/debian_version").exists() else ""
    commit = _run("git", "-C", str(repo), "rev-parse", "--short", "HEAD")
    dirty = bool(_run("git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"))
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
        "os": f"Debian {debian}",
        "python": _run(python, "--version"),
        "python_packages": packages,
        "poco": _run("dpkg-query", "-W", "-f=${Version}", "libpoco-dev"),
        "gcc": _run("g++", "-dumpfullversion"),
        "envhost_commit": commit + ("-dirty" if dirty else ""),
        "open_files_limit": _run("sh", "-c", "ulimit -n"),
        "pid_max": Path("/proc/sys/kernel/pid_max").read_text().strip(),
        # Other work on the machine shows here; the benchmark cannot control it.
        "loadavg_start": Path("/proc/loadavg").read_text().split()[:3],
    }
