"""Small helpers over the real `websockets` client for the integration tests."""
import json

from websockets.sync.client import connect


def ws_connect(server, path="/ws", **kw):
    return connect(server.ws_url(path), open_timeout=10, max_size=2**27, **kw)


def ask(ws, message, timeout=30):
    """Sends one JSON message and returns the parsed reply."""
    ws.send(json.dumps(message) if not isinstance(message, (str, bytes)) else message)
    return json.loads(ws.recv(timeout=timeout))


def step_echo(message="hi", tool="echo_message"):
    return {"type": "step", "data": {"type": "call_tool", "tool_name": tool, "arguments": {"message": message}}}
