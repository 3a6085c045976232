"""Starting, probing and stopping the servers under test.

Each server runs in its own session (process group) so that stopping it also
stops whatever it started (uvicorn workers, sandboxes), and nothing else.
Memory is the PSS of the whole process tree, so shared pages (a forked
worker's, a shared library's) are counted once, not once per process.
"""

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path


class Server:
    def __init__(self, name, argv, port, log_dir, env=None, health_path="/health", cwd=None):
        self.name, self.argv, self.port = name, argv, port
        # A path or a list of paths (any answering 200 will do); None: a TCP connect is enough.
        self.health_paths = [health_path] if isinstance(health_path, str) else health_path
        self.env = {**os.environ, **(env or {})}
        self.cwd = cwd
        self.log_path = Path(log_dir) / f"{name}.log"
        self.proc = None

    def start(self, timeout_s=60):
        if self.proc:
            return self
        _wait_port_free(self.port)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                     cwd=self.cwd, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see {self.log_path}")
            if self._ready():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} not ready after {timeout_s}s; see {self.log_path}")

    def _ready(self):
        try:
            if self.health_paths is None:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
        except OSError:
            return False
        for path in self.health_paths or []:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as r:
                    if r.status == 200:
                        return True
            except OSError:
                pass
        return False

    def stop(self):
        if not self.proc:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def pids(self):
        """The server's process and all its descendants."""
        if not self.alive():
            return []
        children = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
        tree, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree

    def pss_kib(self):
        total = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total

    def cpu_seconds(self):
        """CPU time used so far by the live process tree (user + system)."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / ticks
        return total

    def threads(self):
        total = 0
        for pid in self.pids():
            try:
                total += len(os.listdir(f"/proc/{pid}/task"))
            except OSError:
                pass
        return total


def _wait_port_free(port, timeout_s=20):
    """A previous server on this port may still be going away."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return
            except OSError:
                time.sleep(0.2)
    raise RuntimeError(f"port {port} is still in use")
