"""What a hostile or broken client can send: the server answers each with the
documented error, keeps serving everyone else, and leaks no session, thread or
file descriptor."""
import json
import os
import random
import socket
import struct
import threading
import time

import pytest
import requests

from conftest import wait_active_sessions
from wsutil import ask, step_echo, ws_connect


def mutations(rng, n):
    """Valid messages, then randomly damaged ones."""
    valid = [json.dumps(m) for m in (
        {"type": "reset", "data": {"seed": 1}}, step_echo("x"), {"type": "state"},
        {"type": "mcp", "data": {"jsonrpc": "2.0", "method": "tools/list", "id": 1}},
        {"type": "step", "data": {"type": "list_tools"}})]
    alphabet = '{}[]":,\\ntrufalse0123456789.-eE ' + "\u00e9\u2603\U0001F600"
    for _ in range(n):
        text = list(rng.choice(valid))
        for _ in range(rng.randint(1, 6)):
            op = rng.random()
            pos = rng.randrange(len(text) + 1)
            if op < 0.4 and text:
                del text[min(pos, len(text) - 1)]
            elif op < 0.8:
                text.insert(pos, rng.choice(alphabet))
            else:
                text[pos:pos] = list(rng.choice(valid))
        yield "".join(text)


def test_fuzzed_ws_messages_each_get_one_well_formed_reply(envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    rng = random.Random(1234)
    codes = {}
    with ws_connect(srv) as bystander:
        ask(bystander, {"type": "reset", "data": {"episode_id": "bystander"}})
        sent = 0
        ws = ws_connect(srv)
        for text in mutations(rng, 600):
            ws.send(text)
            sent += 1
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] in ("observation", "state", "mcp", "error"), reply
            if reply["type"] == "error":
                code = reply["data"]["code"]
                assert code in ("INVALID_JSON", "UNKNOWN_TYPE", "VALIDATION_ERROR", "EXECUTION_ERROR", "SESSION_ERROR")
                codes[code] = codes.get(code, 0) + 1
                if code == "SESSION_ERROR":  # e.g. the mutation left a JSON array: fatal by the protocol
                    ws.close()
                    ws = ws_connect(srv)
        ws.close()
        assert sent == 600 and codes.get("INVALID_JSON", 0) > 50 and codes.get("VALIDATION_ERROR", 0) > 0
        assert ask(bystander, {"type": "state"})["data"] == {"episode_id": "bystander", "step_count": 0}
    wait_active_sessions(srv, "echo_env", 0)


def test_fuzzed_http_bodies(envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    rng = random.Random(99)
    for text in mutations(rng, 200):
        for path in ("/step", "/reset", "/mcp"):
            r = requests.post(srv.url(path), data=text.encode("utf-8", "surrogatepass"), timeout=10)
            assert r.status_code in (200, 422, 500) if path != "/mcp" else r.status_code == 200
            body = r.json()
            assert isinstance(body, dict)
            if path == "/mcp":
                assert body["jsonrpc"] == "2.0"
    assert requests.get(srv.url("/health")).json() == {"status": "healthy"}


def test_invalid_utf8_and_deep_nesting(envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    with ws_connect(srv) as ws:
        assert ask(ws, "[" * 100000)["data"]["code"] == "INVALID_JSON"
        assert ask(ws, '{"type": "step", "data": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}")["data"]["code"] == "INVALID_JSON"
        assert ask(ws, {"type": "step", "data": {"tool_name": "echo_message", "arguments": {"message": "\ud83d\ude00 ok"}}})["type"] == "observation"
    r = requests.post(srv.url("/step"), data=b'{"action": {"tool_name": "\xff\xfe"}}')
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "json_invalid"
    r = requests.post(srv.url("/step"), data=b"[" * 200000)
    assert r.status_code == 422


def raw_request(port, data, read=True):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        if not read:
            return b""
        chunks = []
        try:
            while True:
                c = s.recv(65536)
                if not c:
                    break
                chunks.append(c)
        except socket.timeout:
            pass
        return b"".join(chunks)


def test_garbage_http_and_broken_frames(envhost_server):
    srv = envhost_server(plugins=["echo_env"])
    before_threads, before_fds = srv.threads(), srv.open_fds()
    rng = random.Random(7)
    for _ in range(30):
        raw_request(srv.port, bytes(rng.randrange(256) for _ in range(rng.randint(1, 3000))))
    raw_request(srv.port, b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"X-Long: " + b"a" * 100000 + b"\r\n\r\n")
    # A WebSocket upgrade, then half a frame, then the client vanishes.
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    upgrade = (f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    for _ in range(10):
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
            s.sendall(upgrade)
            assert s.recv(4096).startswith(b"HTTP/1.1 101")
            s.sendall(struct.pack("!BBH", 0x81, 0xFE, 5000) + b"\x00\x00\x00\x00" + b"x" * 100)
    # A frame header announcing 2^62 bytes.
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
        s.sendall(upgrade)
        s.recv(4096)
        s.sendall(struct.pack("!BBQ", 0x81, 0xFF, 2**62) + b"\x00\x00\x00\x00")
        data = s.recv(4096)
        assert b"SESSION_ERROR" in data
    # A WebSocket upgrade without a key is refused over HTTP.
    r = raw_request(srv.port, b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    assert r.startswith(b"HTTP/1.1 400")
    assert requests.get(srv.url("/health")).status_code == 200
    with ws_connect(srv) as ws:
        assert ask(ws, step_echo("still here"))["data"]["observation"]["result"]["data"] == "still here"
    wait_active_sessions(srv, "echo_env", 0)
    deadline = time.time() + 10
    while (srv.threads() > before_threads + 4 or srv.open_fds() > before_fds + 4) and time.time() < deadline:
        time.sleep(0.1)
    assert srv.open_fds() <= before_fds + 4
    assert srv.alive()


def test_connection_churn_leaks_nothing(envhost_server):
    srv = envhost_server(plugins=["echo_env"], config={"environments": {"echo_env": {"max_sessions": 64}}})
    with ws_connect(srv) as warm:
        ask(warm, {"type": "reset"})
    time.sleep(0.5)
    before_fds = srv.open_fds()

    def churn(i):
        for k in range(15):
            ws = ws_connect(srv)
            ask(ws, {"type": "reset"})
            if k % 3 == 0:
                ws.socket.close()  # vanish without a close frame
            else:
                ws.close()

    threads = [threading.Thread(target=churn, args=(i,)) for i in range(16)]
    [t.start() for t in threads]
    [t.join(60) for t in threads]
    wait_active_sessions(srv, "echo_env", 0, timeout=15)
    deadline = time.time() + 10
    while srv.open_fds() > before_fds + 4 and time.time() < deadline:
        time.sleep(0.1)
    assert srv.open_fds() <= before_fds + 4
