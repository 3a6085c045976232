"""Every HTTP route of the protocol, against the real envhost binary + echo_env."""
import json
import pathlib
import subprocess
import sys

import pytest
import requests


OPENENV_CLI = pathlib.Path(sys.executable).with_name("openenv")


@pytest.fixture
def echo(envhost_server):
    return envhost_server(plugins=["echo_env"])


def test_health_metadata_schema(echo):
    assert requests.get(echo.url("/health")).json() == {"status": "healthy"}
    r = requests.get(echo.url("/metadata"))
    assert r.headers["Content-Type"].startswith("application/json")
    meta = r.json()
    assert meta["name"] == "echo_env" and meta["version"] == "1.0.0"
    assert set(meta) == {"name", "description", "readme_content", "version", "author", "documentation_url"}
    schema = requests.get(echo.url("/schema")).json()
    assert set(schema) == {"action", "observation", "state"}
    assert schema["state"]["properties"]["step_count"]["type"] == "integer"


def test_same_routes_under_envs_prefix(echo):
    assert requests.get(echo.url("/envs/echo_env/health")).json() == {"status": "healthy"}
    assert requests.get(echo.url("/envs/echo_env/metadata")).json()["name"] == "echo_env"
    envs = requests.get(echo.url("/envs")).json()
    assert envs["default"] == "echo_env"
    [e] = envs["environments"]
    assert (e["name"], e["active_sessions"], e["max_sessions"]) == ("echo_env", 0, 8)
    r = requests.get(echo.url("/envs/nope/health"))
    assert r.status_code == 404 and "nope" in r.json()["detail"]


def test_stateless_reset_and_step(echo):
    r = requests.post(echo.url("/reset"))
    assert r.status_code == 200
    assert r.json() == {"observation": {}, "reward": 0.0, "done": False}
    assert requests.post(echo.url("/reset"), data="null").status_code == 200
    r = requests.post(echo.url("/reset"), json={"seed": "42", "episode_id": "e1", "extra": [1]})
    assert r.status_code == 200
    r = requests.post(echo.url("/step"), json={"action": {"tool_name": "echo_with_length", "arguments": {"message": "héllo"}}, "timeout_s": 5, "request_id": "r1"})
    assert r.status_code == 200
    body = r.json()
    assert body["observation"]["result"]["data"] == {"message": "héllo", "length": 5}
    assert body["observation"]["error"] is None
    assert body["reward"] is None and body["done"] is False
    state = requests.get(echo.url("/state")).json()
    assert state["step_count"] == 0 and isinstance(state["episode_id"], str)


def test_request_level_422s(echo):
    r = requests.post(echo.url("/step"), json={})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "action"]
    assert r.json()["detail"][0]["type"] == "missing"
    r = requests.post(echo.url("/step"), json={"action": {"tool_name": "echo_message"}, "timeout_s": 0})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "timeout_s"]
    r = requests.post(echo.url("/reset"), json={"seed": -1})
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "greater_than_equal"
    r = requests.post(echo.url("/reset"), json={"episode_id": "x" * 256})
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "string_too_long"
    r = requests.post(echo.url("/step"), data='{"action": {', headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    [err] = r.json()["detail"]
    assert err["type"] == "json_invalid" and err["loc"][0] == "body" and isinstance(err["loc"][1], int)
    assert err["msg"] == "JSON decode error" and "error" in err["ctx"]
    r = requests.post(echo.url("/step"), data="[1, 2]")
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body"]
    r = requests.post(echo.url("/step"))
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "missing"


def test_action_level_422(echo):
    r = requests.post(echo.url("/step"), json={"action": {"tool_name": 7, "bogus": True}})
    assert r.status_code == 422
    detail = r.json()["detail"]
    kinds = {(d["type"], tuple(d["loc"])) for d in detail}
    assert ("string_type", ("tool_name",)) in kinds
    assert ("extra_forbidden", ("bogus",)) in kinds
    # The base `metadata` field is always accepted.
    r = requests.post(echo.url("/step"), json={"action": {"tool_name": "echo_message", "arguments": {"message": "m"}, "metadata": {}}})
    assert r.status_code == 200


def test_python_special_floats_are_accepted(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    r = requests.post(srv.url("/step"), data='{"action": {"echo": [NaN, Infinity, -Infinity]}}')
    assert r.status_code == 200
    assert r.json()["observation"]["echo"] == [None, None, None]  # JSON has no NaN: sent as null


def test_404_405(echo):
    r = requests.get(echo.url("/nope"))
    assert r.status_code == 404 and r.json() == {"detail": "Not Found"}
    r = requests.post(echo.url("/health"))
    assert r.status_code == 405 and r.json() == {"detail": "Method Not Allowed"}
    assert requests.get(echo.url("/reset")).status_code == 405
    assert requests.put(echo.url("/step")).status_code == 405
    assert requests.get(echo.url("/mcp")).status_code == 405
    assert requests.get(echo.url("/ws")).status_code == 426


def test_body_size_limit(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"max_message_bytes": 1000})
    r = requests.post(srv.url("/step"), json={"action": {"tool_name": "echo_message", "arguments": {"message": "x" * 2000}}})
    assert r.status_code == 413 and "1000" in r.json()["detail"]
    assert requests.get(srv.url("/health")).status_code == 200


def test_plugin_errors_map_to_http(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    r = requests.post(srv.url("/step"), json={"action": {"fail": True}})
    assert r.status_code == 500 and r.json() == {"detail": "step failed on request"}
    r = requests.post(srv.url("/step"), json={"action": {"reward": True}})
    assert r.json()["reward"] == 1.0 and isinstance(r.json()["reward"], float)
    r = requests.post(srv.url("/step"), json={"action": {}, "timeout_s": 2.5})
    assert r.json()["observation"]["timeout_s"] == 2.5


def test_openapi_documents(echo):
    doc = requests.get(echo.url("/openapi.json")).json()
    assert isinstance(doc["info"]["version"], str)
    for p in ("/reset", "/step", "/state", "/health", "/mcp", "/envs/echo_env/step"):
        assert p in doc["paths"], p
    per_env = requests.get(echo.url("/envs/echo_env/openapi.json")).json()
    assert {"/reset", "/step", "/state"} <= set(per_env["paths"])
    assert per_env["servers"][0]["url"] == "/envs/echo_env"
    step_action = per_env["paths"]["/step"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["action"]
    assert step_action == requests.get(echo.url("/schema")).json()["action"]


def test_production_mode(envhost_server):
    srv = envhost_server(plugins=["echo_env"], args=["--mode", "production"])
    for method, path in (("post", "/reset"), ("post", "/step"), ("get", "/state")):
        assert getattr(requests, method)(srv.url(path)).status_code == 404
    assert requests.get(srv.url("/schema")).status_code == 200
    assert requests.get(srv.url("/metadata")).status_code == 200
    paths = requests.get(srv.url("/openapi.json")).json()["paths"]
    assert not {"/reset", "/step", "/state"} & set(paths)
    r = requests.post(srv.url("/mcp"), json={"jsonrpc": "2.0", "method": "tools/list", "id": 1})
    assert len(r.json()["result"]["tools"]) == 2


def test_openenv_validate_gate(echo):
    """Section 8: the real `openenv validate <url>` CLI passes, at the root and under /envs/<name>."""
    for base in (echo.base_url, echo.url("/envs/echo_env")):
        out = subprocess.run([str(OPENENV_CLI), "validate", base], capture_output=True, text=True, timeout=60)
        report = json.loads(out.stdout)
        assert out.returncode == 0 and report["passed"], out.stdout
        assert report["summary"]["passed_count"] == report["summary"]["total_count"] >= 6


def test_metrics_count_sessions_steps_and_refusals(envhost_server):
    from wsutil import ask, step_echo, ws_connect

    srv = envhost_server(plugins=["echo_env", "test_env"],
                         config={"environments": {"echo_env": {"max_sessions": 1}}})

    def metric(name, env="echo_env"):
        r = requests.get(srv.url("/metrics"))
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
        for line in r.text.splitlines():
            if line.startswith(f'{name}{{env="{env}"}} '):
                return int(line.split()[-1])
        raise AssertionError(f"{name} for {env} not in /metrics")

    with ws_connect(srv, "/envs/echo_env/ws") as ws:
        ask(ws, {"type": "reset"})
        for _ in range(3):
            ask(ws, step_echo())
        assert metric("envhost_sessions_active") == 1
        with ws_connect(srv, "/envs/echo_env/ws") as refused:
            assert json.loads(refused.recv(timeout=5))["data"]["code"] == "CAPACITY_REACHED"
    requests.post(srv.url("/envs/echo_env/step"), json={"action": {"tool_name": "echo_message", "arguments": {"message": "m"}}})
    requests.post(srv.url("/envs/test_env/step"), json={"action": {"fail": True}})
    requests.post(srv.url("/envs/echo_env/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                       "params": {"name": "echo_message", "arguments": {"message": "x"}}})
    assert metric("envhost_steps_total") == 4
    assert metric("envhost_sessions_opened_total") == 1
    assert metric("envhost_sessions_refused_capacity_total") == 1
    assert metric("envhost_tool_calls_total") == 1
    assert metric("envhost_sessions_max") == 1
    assert metric("envhost_step_errors_total", "test_env") == 1
