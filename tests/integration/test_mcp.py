"""MCP JSON-RPC over POST /mcp, WS /mcp and the /ws `mcp` message."""
import json
import threading
import time

import pytest
import requests
from websockets.exceptions import ConnectionClosed

from conftest import wait_active_sessions
from wsutil import ask, ws_connect


def rpc(method, params=None, id=1):
    r = {"jsonrpc": "2.0", "method": method, "id": id}
    if params is not None:
        r["params"] = params
    return r


class Http:
    def __init__(self, srv, prefix=""):
        self.url = srv.url(prefix + "/mcp")

    def __call__(self, body):
        data = body if isinstance(body, (str, bytes)) else json.dumps(body)
        r = requests.post(self.url, data=data, headers={"Content-Type": "application/json"})
        assert r.status_code == 200
        return r.json()


class WsMcp:
    def __init__(self, ws):
        self.ws = ws

    def __call__(self, body):
        return ask(self.ws, body)


class WsEnvelope:
    def __init__(self, ws):
        self.ws = ws

    def __call__(self, body):
        r = ask(self.ws, {"type": "mcp", "data": body})
        assert r["type"] == "mcp"
        return r["data"]


@pytest.fixture(params=["http", "ws_mcp", "ws_envelope"])
def transport(request, envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    if request.param == "http":
        yield Http(srv)
    elif request.param == "ws_mcp":
        with ws_connect(srv, "/mcp") as ws:
            yield WsMcp(ws)
    else:
        with ws_connect(srv, "/ws") as ws:
            yield WsEnvelope(ws)


def test_error_matrix(transport):
    def err(body):
        r = transport(body)
        assert r["jsonrpc"] == "2.0" and "result" not in r, r
        assert "data" in r["error"]
        return r

    if not isinstance(transport, WsEnvelope):  # the envelope needs a JSON object
        assert err("{bad json")["error"]["code"] == -32700
        assert err("[1]")["error"]["code"] == -32600
    r = err({"method": "tools/list", "id": 3})
    assert r["error"]["code"] == -32600 and r["error"]["message"].startswith("Invalid request")
    assert err({"jsonrpc": "2.0", "method": "tools/list", "id": 1, "extra": 1})["error"]["code"] == -32600
    r = err(rpc("no/such"))
    assert r["error"] == {"code": -32601, "message": "Method not found: no/such", "data": None}
    assert err(rpc("tools/call", {}))["error"]["message"] == "Missing 'name' in params"
    assert err(rpc("tools/call", {"name": "zz"}))["error"]["message"] == "Tool not found: zz"
    assert err(rpc("openenv/session/close", {}))["error"]["message"] == "Invalid params - 'session_id' is required"
    assert err(rpc("openenv/session/close", {"session_id": "nope"}))["error"]["message"] == "Unknown session_id: nope"


def test_ids_are_echoed(transport):
    for id_ in ("abc", 42, None):
        r = transport(rpc("tools/list", id=id_))
        assert r["id"] == id_ and len(r["result"]["tools"]) == 2
    r = transport({"jsonrpc": "2.0", "method": "tools/list"})  # no id: still answered
    assert r["id"] is None and "result" in r


def test_tools_call(transport):
    r = transport(rpc("tools/call", {"name": "echo_message", "arguments": {"message": "hi"}}))
    assert r["result"] == {"content": [{"type": "text", "text": "hi"}], "structured_content": {"result": "hi"}, "data": "hi", "is_error": False}
    r = transport(rpc("tools/call", {"name": "echo_with_length", "arguments": {"message": "four"}}))
    assert r["result"]["data"] == {"message": "four", "length": 4}
    tools = transport(rpc("tools/list"))["result"]["tools"]
    assert tools[0]["inputSchema"]["required"] == ["message"]


def test_ws_bound_session_create_and_self_close(envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    with ws_connect(srv, "/mcp") as ws:
        sid = ask(ws, rpc("openenv/session/create"))["result"]["session_id"]
        r = ask(ws, rpc("openenv/session/close", {"session_id": sid}))
        assert r["error"]["code"] == -32600
        assert ask(ws, rpc("tools/list"))["result"]["tools"]


def test_http_sessions(envhost_server):
    srv = envhost_server(plugins=["test_env"], config={"environments": {"test_env": {"max_sessions": 2}}})
    call = Http(srv)
    a = call(rpc("openenv/session/create"))["result"]["session_id"]
    b = call(rpc("openenv/session/create"))["result"]["session_id"]
    r = call(rpc("openenv/session/create"))
    assert r["error"]["code"] == -32000 and r["error"]["data"] == {"active_sessions": 2, "max_sessions": 2}
    envs = requests.get(srv.url("/envs")).json()["environments"][0]
    assert envs["active_sessions"] == 2
    r = call(rpc("tools/call", {"name": "sleep", "arguments": {"seconds": 0}, "session_id": a}))
    assert r["result"]["data"]["slept"] == 0
    assert call(rpc("tools/list", {"session_id": "nope"}))["error"]["code"] == -32602
    assert call(rpc("openenv/session/close", {"session_id": a}))["result"]["closed"] is True
    assert call(rpc("openenv/session/close", {"session_id": a}))["error"]["code"] == -32602
    wait_active_sessions(srv, "test_env", 1)
    # the freed slot takes a WS session, which can close another client's HTTP session
    with ws_connect(srv, "/mcp") as ws:
        assert ask(ws, rpc("openenv/session/close", {"session_id": b}))["result"] == {"session_id": b, "closed": True}
    assert call(rpc("tools/list", {"session_id": b}))["error"]["code"] == -32602


def test_non_mcp_environment(envhost_server):
    srv = envhost_server(plugins=["c_counter"])
    r = Http(srv)(rpc("tools/list"))
    assert r["error"] == {"code": -32603, "message": "Environment does not support MCP", "data": None}
    assert Http(srv)(rpc("tools/call", {"name": "x"}))["error"]["code"] == -32603


def test_ws_mcp_capacity(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"max_sessions": 1}}})
    with ws_connect(srv, "/mcp") as first:
        assert ask(first, rpc("tools/list"))["result"]
        with ws_connect(srv, "/mcp") as second:
            r = json.loads(second.recv(timeout=5))
            assert r["error"]["code"] == -32000 and r["error"]["data"]["max_sessions"] == 1
            with pytest.raises(ConnectionClosed):
                second.recv(timeout=5)


def test_http_session_reaped_when_idle(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"idle_timeout_s": 0.4}}})
    call = Http(srv)
    sid = call(rpc("openenv/session/create"))["result"]["session_id"]
    time.sleep(1.5)
    assert call(rpc("tools/list", {"session_id": sid}))["error"]["message"] == f"Unknown session_id: {sid}"


def test_close_during_slow_call(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    call = Http(srv)
    sid = call(rpc("openenv/session/create"))["result"]["session_id"]
    results = {}

    def slow():
        results["slow"] = call(rpc("tools/call", {"name": "sleep", "arguments": {"seconds": 1.0}, "session_id": sid}, id=1))

    def queued():
        results["queued"] = call(rpc("tools/call", {"name": "sleep", "arguments": {"seconds": 0}, "session_id": sid}, id=2))

    t1 = threading.Thread(target=slow)
    t1.start()
    time.sleep(0.2)
    t2 = threading.Thread(target=queued)
    t2.start()
    time.sleep(0.2)
    assert call(rpc("openenv/session/close", {"session_id": sid}))["result"]["closed"] is True
    t1.join(10)
    t2.join(10)
    assert results["slow"]["result"]["data"]["slept"] == 1.0
    assert results["queued"]["id"] == 2 and results["queued"]["error"]["code"] == -32000


def test_many_http_sessions(envhost_server):
    n = 32
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"max_sessions": n}}})
    call = Http(srv)
    errors = []

    def worker(i):
        try:
            sid = call(rpc("openenv/session/create"))["result"]["session_id"]
            for k in range(10):
                r = call(rpc("tools/call", {"name": "echo_message", "arguments": {"message": f"{i}:{k}"}, "session_id": sid}))
                assert r["result"]["data"] == f"{i}:{k}"
            assert call(rpc("openenv/session/close", {"session_id": sid}))["result"]["closed"]
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    [t.start() for t in threads]
    [t.join(60) for t in threads]
    assert errors == []


def test_mcp_under_envs_prefix_and_production(envhost_server):
    srv = envhost_server(plugins=["echo_env", "test_env"], args=["--mode", "production"])
    r = Http(srv, "/envs/echo_env")(rpc("tools/list"))
    assert [t["name"] for t in r["result"]["tools"]] == ["echo_message", "echo_with_length"]
    r = Http(srv, "/envs/test_env")(rpc("tools/list"))
    assert [t["name"] for t in r["result"]["tools"]] == ["sleep", "fail"]
    r = Http(srv, "/envs/test_env")(rpc("tools/call", {"name": "fail"}))
    assert r["error"] == {"code": -32603, "message": "tool failed on request", "data": None}
    # two environments and no --default-env: nothing but /health at the root
    assert requests.post(srv.url("/mcp"), json=rpc("tools/list")).status_code == 404


def test_mcp_tool_client_production_mode_against_coding_env(envhost_server):
    import asyncio
    from openenv.core.mcp_client import MCPToolClient

    srv = envhost_server(plugins=["coding_env"], args=["--mode", "production"],
                         config={"environments": {"coding_env": {"config": {"pool_size": 2}}}})

    async def run():
        env = MCPToolClient(base_url=srv.base_url)
        env.use_production_mode = True
        async with env:
            assert [t.name for t in await env.list_tools()] == ["run_python"]
            assert await env.call_tool("run_python", code="x = 2\nx * 21") == {"stdout": "42", "stderr": "", "exit_code": 0}
            # the HTTP-created session keeps its interpreter between calls
            assert (await env.call_tool("run_python", code="print(x)"))["stdout"] == "2\n"
        wait_active_sessions(srv, "coding_env", 0)
    asyncio.run(run())
