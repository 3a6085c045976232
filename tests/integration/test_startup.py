"""Starting and stopping the real binary: flags, plugin scanning, refusals, signals."""
import json
import signal
import subprocess
import time

import pytest
import requests

from conftest import ENVHOST_BIN, plugin_path
from wsutil import ask, ws_connect


def run(*args, timeout=20):
    return subprocess.run([str(ENVHOST_BIN), *args], capture_output=True, text=True, timeout=timeout)


def test_version_and_help():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("envhost ")
    r = run("--help")
    assert r.returncode == 0
    for flag in ("--plugin-dir", "--host", "--port", "--mode", "--config", "--default-env", "--help", "--version"):
        assert flag in r.stdout, flag


def test_bad_flags_and_config(tmp_path):
    assert run("--mode", "fast", "--port", "0").returncode == 78
    assert run("--port", "99999").returncode != 0
    assert run("--no-such-flag").returncode != 0
    cfg = tmp_path / "c.json"
    cfg.write_text('{"environments": {"echo_env": {"max_sesions": 2}}}')
    r = run("--config", str(cfg), "--port", "0")
    assert r.returncode == 78 and "max_sesions" in r.stderr


def test_bad_plugins_are_skipped_with_reasons(envhost_server):
    srv = envhost_server(plugins=["echo_env", "bad_abi_env", "no_entry_lib", "reserved_tool_env", "not_a_library"])
    names = [e["name"] for e in requests.get(srv.url("/envs")).json()["environments"]]
    assert names == ["echo_env"]
    log = srv.log()
    assert "bad_abi_env.so: ABI version 999" in log
    assert "no_entry_lib.so: no envhost_plugin_entry symbol" in log
    assert "reserved tool name 'step'" in log
    assert "not_a_library.so: not a shared library" in log


def test_non_concurrency_safe_plugin_refused_above_one_session(envhost_server):
    with pytest.raises(RuntimeError) as e:
        envhost_server(plugins=["c_counter"], config={"environments": {"c_counter": {"max_sessions": 4}}})
    assert "is not marked as SUPPORTS_CONCURRENT_SESSIONS. Cannot run with max_concurrent_envs=4." in str(e.value)


def test_non_concurrency_safe_plugin_has_one_live_instance(envhost_server):
    srv = envhost_server(plugins=["c_counter"])
    assert requests.post(srv.url("/step"), json={"action": {"increment": 3}}).json()["observation"]["count"] == 3
    with ws_connect(srv) as ws:
        assert ask(ws, {"type": "reset"})["data"]["observation"] == {"count": 0, "target": 10}
        r = requests.post(srv.url("/step"), json={"action": {"increment": 1}})
        assert r.status_code == 503 and "not concurrency-safe" in r.json()["detail"]
        r = ask(ws, {"type": "step", "data": {"increment": 10}})
        assert r["data"] == {"observation": {"count": 10, "target": 10}, "reward": 1.0, "done": True}
        r = ask(ws, {"type": "step", "data": {"increment": 0}})
        assert r["data"]["code"] == "VALIDATION_ERROR"  # schema minimum 1


def test_default_env_flag_and_multiple_envs(envhost_server):
    srv = envhost_server(plugins=["echo_env", "guess_env"])
    assert requests.get(srv.url("/health")).status_code == 200
    assert requests.get(srv.url("/metadata")).status_code == 404  # no default among two
    assert requests.get(srv.url("/envs/guess_env/metadata")).json()["name"] == "guess_env"
    srv2 = envhost_server(plugins=["echo_env", "guess_env"], args=["--default-env", "guess_env"])
    assert requests.get(srv2.url("/metadata")).json()["name"] == "guess_env"
    r = requests.post(srv2.url("/reset"), json={"seed": 3})
    assert r.json()["observation"]["hint"].startswith("guess a number")
    with pytest.raises(RuntimeError):
        envhost_server(plugins=["echo_env"], args=["--default-env", "nope"])


def test_sigterm_closes_sessions_and_exits_cleanly(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    with ws_connect(srv) as ws:
        ask(ws, {"type": "reset"})
        srv.proc.send_signal(signal.SIGTERM)
        r = json.loads(ws.recv(timeout=10))
        assert r["data"]["code"] == "SESSION_ERROR" and "shutting down" in r["data"]["message"]
    assert srv.proc.wait(15) == 0
    assert "stopped" in srv.log()


def test_sigint_with_idle_keepalive_connection(envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    s = requests.Session()
    assert s.get(srv.url("/health")).status_code == 200  # leaves a keep-alive connection open
    t0 = time.time()
    srv.proc.send_signal(signal.SIGINT)
    assert srv.proc.wait(15) == 0
    assert time.time() - t0 < 10


def test_cmake_install_tree_serves_bundled_plugins(tmp_path):
    """`cmake --install build --prefix P` gives P/bin/envhost, which finds P's plugins by itself."""
    from conftest import BUILD, free_port
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (prefix / "include" / "envhost" / "plugin.h").exists()
    assert list(prefix.glob("lib*/**/cmake/envhost/envhostConfig.cmake"))
    assert list(prefix.glob("lib*/**/pkgconfig/envhost.pc"))
    port = free_port()
    proc = subprocess.Popen([str(prefix / "bin" / "envhost"), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 15
        while True:
            try:
                envs = requests.get(f"http://127.0.0.1:{port}/envs", timeout=1).json()
                break
            except requests.RequestException:
                assert proc.poll() is None and time.time() < deadline
                time.sleep(0.05)
        names = {e["name"] for e in envs["environments"]}
        assert {"echo_env", "coding_env"} <= names
    finally:
        proc.terminate()
        proc.wait(15)
