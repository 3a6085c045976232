"""coding_env's sandbox, attacked through the real envhost over /ws.

Each case runs hostile code in one session and checks three things: the code
was contained (its own observation says so), the host is still healthy, and
a bystander session that was open the whole time still works with its state.
"""
import json
import os
import socket
import threading

import pytest
import requests
from websockets.sync.client import connect

PLUGIN_CONFIG = {"pool_size": 4, "timeout_s": 3, "output_limit_bytes": 65536, "max_processes": 16,
                 "memory_limit_mb": 256}
CONFIG = {"environments": {"coding_env": {"max_sessions": 64, "config": PLUGIN_CONFIG}}}


class Session:
    def __init__(self, url):
        self.ws = connect(url, open_timeout=10, max_size=None)
        self.request({"type": "reset", "data": {}})

    def request(self, msg):
        self.ws.send(json.dumps(msg))
        reply = json.loads(self.ws.recv(timeout=60))
        assert reply["type"] != "error", reply
        return reply["data"]

    def run(self, code):
        return self.request({"type": "step", "data": {"code": code}})["observation"]

    def value(self, code):
        o = self.run(code)
        assert o["exit_code"] == 0, o
        return json.loads(o["stdout"])

    def close(self):
        try:
            self.ws.send(json.dumps({"type": "close"}))
        finally:
            self.ws.close()


@pytest.fixture
def env(envhost_server):
    """(server, attacker session, bystander session); checks both survive."""
    srv = envhost_server(plugins=["coding_env"], config=CONFIG)
    attacker, bystander = Session(srv.ws_url("/ws")), Session(srv.ws_url("/ws"))
    bystander.run("canary = 'still here'")
    yield srv, attacker
    assert srv.alive(), srv.log()
    assert requests.get(srv.url("/health"), timeout=5).json() == {"status": "healthy"}
    assert bystander.value("canary") == "still here"
    assert attacker.value("6 * 7") == 42, "the attacked session must keep working"
    attacker.close()
    bystander.close()


def test_cannot_connect_to_a_listener_on_the_host_loopback(env):
    srv, s = env
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0)
    port = listener.getsockname()[1]
    # Including the envhost port itself.
    for target in (port, srv.port):
        o = s.run(f"import socket\nsocket.create_connection(('127.0.0.1', {target}), timeout=2)")
        assert o["exit_code"] == 1 and ("OSError" in o["stderr"] or "unreachable" in o["stderr"]), o
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    o = s.run("import socket\ns = socket.socket()\ns.connect(('1.1.1.1', 53))")
    assert o["exit_code"] == 1 and "unreachable" in o["stderr"], o


def test_dns_lookup_fails(env):
    _, s = env
    o = s.run("import socket\nsocket.getaddrinfo('example.com', 443)")
    assert o["exit_code"] == 1 and "gaierror" in o["stderr"], o
    assert s.value("open('/etc/resolv.conf').read()") == ""


def test_cannot_write_outside_scratch(env):
    _, s = env
    for path in ("/usr/lib/evil", "/etc/passwd", "/evil", "/bin/evil", "/proc/sys/kernel/hostname"):
        o = s.run(f"open({path!r}, 'w').write('x')")
        assert o["exit_code"] == 1 and any(
            m in o["stderr"] for m in ("Read-only file system", "Permission denied", "No such file")), (path, o)
    assert s.value("import os\nopen('mine.txt', 'w').write('ok')\nos.path.abspath('mine.txt')") == "/scratch/mine.txt"
    assert not os.path.exists("/scratch/mine.txt")


def test_cannot_read_another_sessions_scratch(env):
    srv, s = env
    other = Session(srv.ws_url("/ws"))
    try:
        other.run("open('/scratch/other_secret.txt', 'w').write('s3cret')")
        found = s.value("import glob\nglob.glob('/scratch/*') + glob.glob('/proc/*/root/scratch/*') + "
                        "glob.glob('/proc/*/cwd/*')")
        assert not any("other_secret" in f for f in found), found
        assert other.value("open('/scratch/other_secret.txt').read()") == "s3cret"
    finally:
        other.close()


def test_cannot_read_host_secrets(env, tmp_path):
    srv, s = env
    secret = tmp_path / "host-secret.txt"
    secret.write_text("TOPSECRET")
    config_files = sorted(str(p) for p in tmp_path.glob("config*.json"))
    assert config_files, "the fixture writes the envhost config next to the test"
    for path in [str(secret), *config_files, "/etc/shadow", "/root/.bashrc", str(srv.log_path)]:
        o = s.run(f"open({path!r}).read()")
        assert o["exit_code"] == 1 and "TOPSECRET" not in o["stdout"], (path, o)
        assert "FileNotFoundError" in o["stderr"] or "PermissionError" in o["stderr"], (path, o)


def test_fork_bomb_is_contained(env):
    _, s = env
    o = s.run("import os\nwhile True:\n    os.fork()")
    assert o["exit_code"] != 0, o
    assert "BlockingIOError" in o["stderr"] or "TimeoutError" in o["stderr"], o
    # No leftovers: the step's processes were ended with it.
    assert s.value("import os\n[p for p in os.listdir('/proc') if p.isdigit()]") == ["1"]


def test_memory_bomb_is_contained(env):
    _, s = env
    o = s.run("blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))")
    assert o["exit_code"] != 0 and ("MemoryError" in o["stderr"] or "InterpreterDied" in o["stderr"]), o
    o = s.run("x = bytearray(8 * 1024 ** 3)")
    assert o["exit_code"] == 1 and "MemoryError" in o["stderr"], o
    s.run("blocks = None")


def test_endless_loop_times_out_and_session_restarts(env):
    _, s = env
    s.run("before = 1")
    o = s.run("while True:\n    pass")
    assert o["exit_code"] == 124 and "TimeoutError" in o["stderr"] and "lost" in o["stderr"], o
    o = s.run("before")
    assert o["exit_code"] == 1 and "NameError" in o["stderr"], o


def test_output_flood_is_truncated_with_a_marker(env):
    _, s = env
    o = s.run("import sys\nwhile True:\n    sys.stdout.write('A' * 65536)")  # ends by timeout
    assert o["exit_code"] == 124, o["stderr"][-300:]
    assert len(o["stdout"]) <= 65536 + 200 and "truncated" in o["stdout"][-200:], len(o["stdout"])
    o = s.run("for i in range(200000):\n    print(i)")
    assert o["exit_code"] == 0 and len(o["stdout"]) <= 65536 + 200 and "truncated" in o["stdout"][-200:]
    assert o["stdout"].startswith("0\n1\n2\n")


def test_killing_pid1_and_the_parent_is_harmless(env):
    srv, s = env
    o = s.run("import os, signal\nos.kill(1, signal.SIGKILL)\nos.kill(os.getppid(), signal.SIGKILL)\n"
              "os.kill(0, signal.SIGKILL)\n'alive'")
    assert o["stdout"] == '"alive"', o
    o = s.run(f"import os, signal\nos.kill({srv.proc.pid}, signal.SIGKILL)")
    assert o["exit_code"] == 1 and "ProcessLookupError" in o["stderr"], o
    o = s.run("import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    pass\n'after kill -1'")
    assert o["stdout"] == '"after kill -1"', o


def test_cannot_list_host_processes(env):
    srv, s = env
    pids = s.value("import os\nsorted(int(p) for p in os.listdir('/proc') if p.isdigit())")
    assert pids == [1], pids
    cmdlines = s.value("import glob\n[open(p, 'rb').read().decode(errors='replace') for p in glob.glob('/proc/*/cmdline')]")
    assert not any("--plugin-dir" in c or "pytest" in c for c in cmdlines), cmdlines
    assert str(srv.proc.pid) not in s.value("import os\nos.listdir('/proc')")


def test_many_sessions_step_concurrently_with_distinct_state(envhost_server):
    srv = envhost_server(plugins=["coding_env"], config=CONFIG)
    n, steps = 64, 5
    errors = []

    def worker(i):
        try:
            sess = Session(srv.ws_url("/ws"))
            try:
                sess.run(f"me = {i}\nseen = []")
                for k in range(steps):
                    o = sess.run(f"seen.append({k})\n(me, len(seen))")
                    if o["exit_code"] != 0 or json.loads(o["stdout"]) != [i, k + 1]:
                        errors.append((i, k, o))
                if sess.request({"type": "state"})["step_count"] != steps + 1:
                    errors.append((i, "step_count"))
            finally:
                sess.close()
        except Exception as e:  # noqa: BLE001 - every failure is reported below
            errors.append((i, repr(e)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[:5]
