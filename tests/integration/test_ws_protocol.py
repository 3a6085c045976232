"""The /ws session protocol and its error matrix, over a real WebSocket client."""
import json
import threading
import time

import pytest
import requests
from websockets.exceptions import ConnectionClosed

from conftest import wait_active_sessions
from wsutil import ask, step_echo, ws_connect


@pytest.fixture
def echo(envhost_server):
    return envhost_server(plugins=["echo_env"])


def test_session_round_trip(echo):
    with ws_connect(echo) as ws:
        r = ask(ws, {"type": "reset", "data": {"episode_id": "ep-7"}})
        assert r == {"type": "observation", "data": {"observation": {}, "reward": 0.0, "done": False}}
        r = ask(ws, step_echo("hello"))
        assert r["type"] == "observation"
        assert r["data"]["observation"]["result"]["data"] == "hello"
        r = ask(ws, {"type": "step", "data": {"type": "list_tools"}})
        names = [t["name"] for t in r["data"]["observation"]["tools"]]
        assert names == ["echo_message", "echo_with_length"]
        r = ask(ws, {"type": "state"})
        assert r == {"type": "state", "data": {"episode_id": "ep-7", "step_count": 2}}
        r = ask(ws, {"type": "reset"})
        assert ask(ws, {"type": "state"})["data"]["step_count"] == 0
        ws.send(json.dumps({"type": "close"}))
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=5)
        assert ws.close_code == 1000


def test_sessions_are_isolated(echo):
    with ws_connect(echo) as a, ws_connect(echo) as b:
        ask(a, {"type": "reset", "data": {"episode_id": "A"}})
        ask(b, {"type": "reset", "data": {"episode_id": "B"}})
        for _ in range(3):
            ask(a, step_echo())
        assert ask(a, {"type": "state"})["data"] == {"episode_id": "A", "step_count": 3}
        assert ask(b, {"type": "state"})["data"] == {"episode_id": "B", "step_count": 0}


def test_error_matrix_keeps_the_socket_open(echo):
    with ws_connect(echo) as ws:
        r = ask(ws, "{not json")
        assert r["type"] == "error" and r["data"]["code"] == "INVALID_JSON"
        assert r["data"]["message"].startswith("Invalid JSON: ")
        r = ask(ws, {"type": "jump"})
        assert r["data"] == {"code": "UNKNOWN_TYPE", "message": "Unknown message type: jump"}
        r = ask(ws, {"data": {}})
        assert r["data"]["code"] == "UNKNOWN_TYPE"
        r = ask(ws, {"type": "step", "data": {"tool_name": ["x"]}})
        assert r["data"]["code"] == "VALIDATION_ERROR" and r["data"]["message"] == "Invalid message"
        assert r["data"]["errors"][0]["type"] == "string_type"
        r = ask(ws, {"type": "step"})
        assert r["data"]["code"] == "VALIDATION_ERROR"
        r = ask(ws, {"type": "state", "extra": 1})
        assert r["data"]["errors"][0] == {"type": "extra_forbidden", "loc": ["extra"], "msg": "Extra inputs are not permitted", "input": 1}
        r = ask(ws, {"type": "reset", "data": {"seed": "abc"}})
        assert r["data"]["code"] == "VALIDATION_ERROR"
        r = ask(ws, {"type": "step", "data": {"tool_name": "echo_message", "arguments": {"message": "x" * 300}}, })
        assert r["type"] == "observation"
        # after all of that the session still works
        assert ask(ws, {"type": "state"})["data"]["step_count"] == 1


def test_execution_error(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    with ws_connect(srv) as ws:
        r = ask(ws, {"type": "step", "data": {"fail": True}})
        assert r["data"] == {"code": "EXECUTION_ERROR", "message": "step failed on request"}
        assert ask(ws, {"type": "step", "data": {"reward": 1}})["data"]["reward"] == 1  # WS keeps the JSON type


@pytest.mark.parametrize("bad", [b"\x00\x01binary", "[1, 2, 3]", '"just a string"'])
def test_fatal_frames_end_only_that_session(echo, bad):
    with ws_connect(echo) as other:
        ask(other, {"type": "reset"})
        with ws_connect(echo) as ws:
            ws.send(bad)
            r = json.loads(ws.recv(timeout=5))
            assert r["type"] == "error" and r["data"]["code"] == "SESSION_ERROR"
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
        assert ask(other, step_echo())["type"] == "observation"
    wait_active_sessions(echo, "echo_env", 0)


def test_oversized_message(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"max_message_bytes": 4096})
    with ws_connect(srv) as ws:
        ws.send(json.dumps(step_echo("x" * 10000)))
        r = json.loads(ws.recv(timeout=5))
        assert r["data"]["code"] == "SESSION_ERROR" and "4096" in r["data"]["message"]
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=5)
        assert ws.close_code == 1009
    assert requests.get(srv.url("/health")).status_code == 200


def test_close_with_data_is_accepted(echo):
    with ws_connect(echo) as ws:
        ws.send(json.dumps({"type": "close", "data": {}}))
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=5)
        assert ws.close_code == 1000


def test_replies_keep_request_order(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    with ws_connect(srv) as ws:
        ws.send(json.dumps({"type": "step", "data": {"sleep_s": 0.3, "echo": 1}}))
        ws.send("{broken")
        ws.send(json.dumps({"type": "step", "data": {"echo": 2}}))
        replies = [json.loads(ws.recv(timeout=5)) for _ in range(3)]
        assert replies[0]["data"]["observation"]["echo"] == 1
        assert replies[1]["data"]["code"] == "INVALID_JSON"
        assert replies[2]["data"]["observation"]["echo"] == 2


def test_replies_before_close_are_sent(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    with ws_connect(srv) as ws:
        ws.send(json.dumps({"type": "step", "data": {"sleep_s": 0.2, "echo": "last"}}))
        ws.send(json.dumps({"type": "close"}))
        assert json.loads(ws.recv(timeout=5))["data"]["observation"]["echo"] == "last"


def test_capacity_reached(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"max_sessions": 2}}})
    with ws_connect(srv) as a, ws_connect(srv) as b:
        ask(a, {"type": "reset"})
        ask(b, {"type": "reset"})
        with ws_connect(srv) as c:
            r = json.loads(c.recv(timeout=5))
            assert r["data"]["code"] == "CAPACITY_REACHED"
            assert r["data"]["message"] == "Server at capacity: 2/2 sessions active. Cannot accept new connections."
            assert (r["data"]["active_sessions"], r["data"]["max_sessions"]) == (2, 2)
            with pytest.raises(ConnectionClosed):
                c.recv(timeout=5)
    wait_active_sessions(srv, "echo_env", 0)  # slots are freed when sessions end
    with ws_connect(srv) as d:
        assert ask(d, {"type": "reset"})["type"] == "observation"


def test_factory_error(envhost_server):
    srv = envhost_server(plugins=["test_env"], config={"environments": {"test_env": {"config": {"fail_create": True}}}})
    with ws_connect(srv) as ws:
        r = json.loads(ws.recv(timeout=5))
        assert r["data"]["code"] == "FACTORY_ERROR"
        assert r["data"]["message"] == "Environment factory 'test_env' failed to create instance."
        assert r["data"]["factory_name"] == "test_env"


def test_idle_sessions_are_reaped_with_a_reason(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"idle_timeout_s": 0.5}}})
    with ws_connect(srv) as ws:
        ask(ws, {"type": "reset"})
        r = json.loads(ws.recv(timeout=5))
        assert r["data"]["code"] == "SESSION_ERROR" and "idle" in r["data"]["message"]
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=5)
    wait_active_sessions(srv, "echo_env", 0)


def test_long_step_does_not_block_pings_or_other_sessions(envhost_server):
    srv = envhost_server(plugins=["test_env"])
    with ws_connect(srv, ping_interval=None) as slow, ws_connect(srv) as fast:
        slow.send(json.dumps({"type": "step", "data": {"sleep_s": 4}}))
        started = time.time()
        pongs, fast_steps = [], 0
        while time.time() - started < 3.5:
            t0 = time.time()
            slow.ping().wait(timeout=1)  # answered within a second while the step runs
            pongs.append(time.time() - t0)
            for _ in range(20):
                assert ask(fast, {"type": "step", "data": {"echo": fast_steps}})["data"]["observation"]["echo"] == fast_steps
                fast_steps += 1
            time.sleep(max(0, 1 - (time.time() - t0)))
        assert len(pongs) >= 3 and max(pongs) < 0.5
        r = json.loads(slow.recv(timeout=5))
        assert r["data"]["observation"]["slept"] == 4
        assert fast_steps >= 60


def test_many_sessions_at_once(envhost_server):
    n = 64
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"max_sessions": n}}})
    errors = []

    def client(i):
        try:
            with ws_connect(srv) as ws:
                ask(ws, {"type": "reset", "data": {"episode_id": f"ep{i}"}})
                for k in range(20):
                    r = ask(ws, step_echo(f"{i}-{k}"))
                    assert r["data"]["observation"]["result"]["data"] == f"{i}-{k}"
                assert ask(ws, {"type": "state"})["data"] == {"episode_id": f"ep{i}", "step_count": 20}
        except Exception as e:  # collected and asserted below
            errors.append(repr(e))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def test_ws_under_envs_prefix_and_unknown_env(echo):
    with ws_connect(echo, "/envs/echo_env/ws") as ws:
        assert ask(ws, {"type": "reset"})["type"] == "observation"
    with pytest.raises(Exception):
        ws_connect(echo, "/envs/nope/ws")


def test_a_websocket_session_costs_about_one_thread(envhost_server):
    """The reactor reads every socket; each session keeps only its worker thread."""
    n = 100
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"max_sessions": n}}})

    with ws_connect(srv) as warm:
        ask(warm, {"type": "reset"})
    time.sleep(0.3)
    before = srv.threads()
    conns = [ws_connect(srv) for _ in range(n)]
    try:
        for ws in conns:
            ask(ws, {"type": "reset"})
        grown = srv.threads() - before
        assert n <= grown <= n + 10, grown
    finally:
        for ws in conns:
            ws.close()
    wait_active_sessions(srv, "echo_env", 0)
