"""Fixtures that run the real envhost binary on a loopback port.

`envhost_server(plugins=[...], config={...}, args=[...])` starts envhost with a
plugin directory holding only the named bundled plugins (symlinks into the
build's plugins/ folder) and an optional JSON config file, waits for /health,
and stops it (SIGTERM) at the end of the test.
"""
import json
import os
import pathlib
import signal
import socket
import subprocess
import time

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ENVHOST_BUILD", ROOT / "build"))
ENVHOST_BIN = BUILD / "host" / "envhost"
PLUGIN_BUILD_DIR = BUILD / "plugins"
EXAMPLES_BUILD_DIR = BUILD / "examples"
TEST_PLUGIN_DIR = BUILD / "test-plugins"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, proc, port, log_path):
        self.proc = proc
        self.port = port
        self.log_path = log_path
        self.base_url = f"http://127.0.0.1:{port}"

    def url(self, path=""):
        return self.base_url + path

    def ws_url(self, path="/ws"):
        return f"ws://127.0.0.1:{self.port}{path}"

    def log(self):
        return pathlib.Path(self.log_path).read_text(errors="replace")

    def threads(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))

    def open_fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=15):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def plugin_path(name):
    for d in (PLUGIN_BUILD_DIR, EXAMPLES_BUILD_DIR, TEST_PLUGIN_DIR):
        p = d / f"{name}.so"
        if p.exists():
            return p
    raise FileNotFoundError(f"no built plugin {name}.so under {BUILD}")


@pytest.fixture
def envhost_server(tmp_path):
    started = []

    def start(plugins=("echo_env",), config=None, args=(), extra_files=(), wait=True, env=None):
        pdir = tmp_path / f"plugins{len(started)}"
        pdir.mkdir()
        for name in plugins:
            (pdir / f"{name}.so").symlink_to(plugin_path(name))
        for fname, content in extra_files:
            (pdir / fname).write_bytes(content)
        port = free_port()
        cmd = [str(ENVHOST_BIN), "--plugin-dir", str(pdir), "--host", "127.0.0.1", "--port", str(port)]
        if config is not None:
            cfg = tmp_path / f"config{len(started)}.json"
            cfg.write_text(json.dumps(config))
            cmd += ["--config", str(cfg)]
        cmd += list(args)
        log_path = tmp_path / f"envhost{len(started)}.log"
        logf = open(log_path, "wb")
        proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
        server = Server(proc, port, log_path)
        started.append(server)
        if wait:
            deadline = time.time() + 20
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"envhost exited with {proc.returncode}:\n{server.log()}")
                try:
                    if requests.get(server.url("/health"), timeout=1).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if time.time() > deadline:
                    raise RuntimeError(f"envhost did not become healthy:\n{server.log()}")
                time.sleep(0.05)
        return server

    yield start
    for s in started:
        s.stop()


def active_sessions(server, env_name):
    for e in requests.get(server.url("/envs"), timeout=5).json()["environments"]:
        if e["name"] == env_name:
            return e["active_sessions"]
    raise KeyError(env_name)


def wait_active_sessions(server, env_name, expected, timeout=5):
    """Sessions end asynchronously (the instance is destroyed on its worker)."""
    deadline = time.time() + timeout
    while active_sessions(server, env_name) != expected:
        if time.time() > deadline:
            raise AssertionError(f"{env_name}: {active_sessions(server, env_name)} active sessions, expected {expected}")
        time.sleep(0.02)
