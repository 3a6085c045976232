"""coding_env through the real envhost, spoken to by the real OpenEnv clients.

Covers the section 7 behaviour checklist of the protocol page with
GenericEnvClient (parsing observations exactly as CodingEnv does: a
CodeObservation model with extra=forbid) and over a raw WebSocket, plus the
HTTP routes, the per-request timeout and the run_python MCP tool.
"""
import json
import time
import uuid

import pytest
import requests
from openenv.core.env_server.types import Action, Observation, State
from openenv.core.generic_client import GenericEnvClient
from websockets.sync.client import connect

CONFIG = {"environments": {"coding_env": {"max_sessions": 64, "config": {"pool_size": 4, "timeout_s": 10}}}}


# The reference's models, so a stray key in an observation fails validation.
class CodeAction(Action):
    code: str


class CodeObservation(Observation):
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


class CodeState(State):
    last_exit_code: int = 0


@pytest.fixture
def server(envhost_server):
    return envhost_server(plugins=["coding_env"], config=CONFIG)


class RawSession:
    """One /ws session spoken to frame by frame."""

    def __init__(self, url):
        self.ws = connect(url, open_timeout=10, max_size=None)

    def request(self, msg):
        self.ws.send(json.dumps(msg))
        return json.loads(self.ws.recv(timeout=60))

    def reset(self, **kw):
        return self.request({"type": "reset", "data": kw})

    def step(self, code):
        return self.request({"type": "step", "data": {"code": code}})

    def state(self):
        return self.request({"type": "state"})

    def close(self):
        try:
            self.ws.send(json.dumps({"type": "close"}))
        finally:
            self.ws.close()


def obs(result):
    # What CodingEnv._parse_result does: CodeObservation(**payload["observation"]).
    return CodeObservation(**result.observation, reward=result.reward, done=result.done)


def test_checklist_through_generic_env_client(server):
    with GenericEnvClient(base_url=server.base_url).sync() as env:
        r = env.reset()
        o = obs(r)
        assert (o.stdout, o.stderr, o.exit_code, r.reward, r.done) == ("", "", 0, 0.0, False)
        ep1 = CodeState(**env.state()).episode_id
        uuid.UUID(ep1)

        # Persistence of variables, functions and imports across steps.
        assert obs(env.step(CodeAction(code="test_var = 42"))).exit_code == 0
        assert obs(env.step(CodeAction(code="test_var * 2"))).stdout == "84"
        env.step(CodeAction(code="def double(x):\n    return 2 * x"))
        assert obs(env.step(CodeAction(code="double(21)"))).stdout == "42"
        env.step(CodeAction(code="import math"))
        s = CodeState(**env.state())
        assert (s.step_count, s.last_exit_code, s.episode_id) == (5, 0, ep1)

        # Reset clears everything and starts a new episode.
        r = env.reset()
        assert r.reward == 0.0 and obs(r).stdout == ""
        s = CodeState(**env.state())
        assert s.step_count == 0 and s.episode_id != ep1
        for name in ("test_var", "double", "math"):
            o = obs(env.step(CodeAction(code=f"{name}")))
            assert o.exit_code == 1 and "NameError" in o.stderr, o

        # Rewards of the reference table, from the code text.
        for code in ("x = 5", "print('Hello')", "y = 10 + 5"):
            r = env.step(CodeAction(code=code))
            assert r.reward == pytest.approx(0.1) and obs(r).exit_code == 0, code
        assert obs(env.step(CodeAction(code="print('Hello')"))).stdout == "Hello\n"
        for code in ("import os", "eval('1+1')", "exec('x=1')", "with open('f.txt', 'w') as f: pass"):
            assert env.step(CodeAction(code=code)).reward == pytest.approx(-0.9), code
        long_dangerous = "import os\n" + "".join(f"v{i} = {i}\n" for i in range(50))
        assert env.step(CodeAction(code=long_dangerous)).reward == pytest.approx(-1.0)
        r = env.step(CodeAction(code="print('unclosed"))
        assert r.reward == pytest.approx(-0.1) and obs(r).exit_code == 1 and "SyntaxError" in obs(r).stderr
        r = env.step(CodeAction(code="print('kept')\nx = 1 / 0"))
        o = obs(r)
        assert o.exit_code == 1 and "ZeroDivisionError" in o.stderr and o.stdout == "kept\n"
        assert CodeState(**env.state()).last_exit_code == 1
        assert r.done is False


def test_checklist_over_raw_websocket(server):
    s = RawSession(server.ws_url("/ws"))
    try:
        r = s.reset(seed=3, episode_id="ignored-by-coding-env")
        assert r == {"type": "observation",
                     "data": {"observation": {"stdout": "", "stderr": "", "exit_code": 0}, "reward": 0.0, "done": False}}
        st = s.state()["data"]
        assert set(st) == {"episode_id", "step_count", "last_exit_code"} and st["step_count"] == 0
        ep1 = st["episode_id"]
        for i in range(5):
            assert s.step(f"counter_{i} = {i}")["data"]["observation"]["exit_code"] == 0
        assert s.state()["data"]["step_count"] == 5
        assert s.step("counter_4 + 1")["data"]["observation"]["stdout"] == "5"
        r = s.step("x = 1 / 0")["data"]
        assert r["observation"]["exit_code"] == 1 and "ZeroDivisionError" in r["observation"]["stderr"]
        assert r["reward"] == pytest.approx(0.1)
        s.reset()
        st = s.state()["data"]
        assert st["step_count"] == 0 and st["episode_id"] != ep1 and st["last_exit_code"] == 0
        r = s.step("counter_4")["data"]["observation"]
        assert r["exit_code"] == 1 and "NameError" in r["stderr"]
        # Schema enforcement happens before the env: a missing code / extra key.
        err = s.request({"type": "step", "data": {"cod": "1"}})
        assert err["type"] == "error" and err["data"]["code"] == "VALIDATION_ERROR"
        assert s.request({"type": "step", "data": {"code": "1", "metadata": {}}})["data"]["observation"]["stdout"] == "1"
    finally:
        s.close()


def test_http_routes_and_timeout_override(server):
    meta = requests.get(server.url("/metadata")).json()
    assert meta["name"] == "coding_env"
    schema = requests.get(server.url("/schema")).json()
    assert schema["action"]["required"] == ["code"]
    assert set(schema["observation"]["properties"]) >= {"stdout", "stderr", "exit_code"}
    r = requests.post(server.url("/step"), json={"action": {"code": "print('hi')\n{'k': 1}"}}).json()
    assert r == {"observation": {"stdout": "hi\n\n{\"k\": 1}", "stderr": "", "exit_code": 0}, "reward": 0.1, "done": False}
    r = requests.post(server.url("/reset"), json={}).json()
    assert r["observation"] == {"stdout": "", "stderr": "", "exit_code": 0} and r["reward"] == 0.0
    # timeout_s of the request overrides the configured 10 s.
    r = requests.post(server.url("/step"), json={"action": {"code": "import time\ntime.sleep(30)"}, "timeout_s": 0.5},
                      timeout=20).json()
    assert r["observation"]["exit_code"] == 124 and "TimeoutError" in r["observation"]["stderr"]
    assert requests.get(server.url("/health")).json() == {"status": "healthy"}


def test_run_python_tool_over_mcp(server):
    def rpc(method, params=None, id_=1):
        body = {"jsonrpc": "2.0", "method": method, "id": id_}
        if params is not None:
            body["params"] = params
        return requests.post(server.url("/mcp"), json=body).json()

    tools = rpc("tools/list")["result"]["tools"]
    assert [t["name"] for t in tools] == ["run_python"]
    assert tools[0]["inputSchema"]["required"] == ["code"]
    sid = rpc("openenv/session/create")["result"]["session_id"]
    try:
        r = rpc("tools/call", {"name": "run_python", "arguments": {"code": "import os\nz = 6"}, "session_id": sid})
        assert r["result"]["data"] == {"stdout": "", "stderr": "", "exit_code": 0}
        r = rpc("tools/call", {"name": "run_python", "arguments": {"code": "z * 7\n"}, "session_id": sid})
        assert r["result"]["data"] == {"stdout": "42", "stderr": "", "exit_code": 0}
        assert r["result"]["is_error"] is False
        # Same sandbox rules for tools: the working directory is the scratch tmpfs.
        r = rpc("tools/call", {"name": "run_python", "arguments": {"code": "os.getcwd()"}, "session_id": sid})
        assert r["result"]["data"]["stdout"] == "\"/scratch\""
        r = rpc("tools/call", {"name": "run_python", "arguments": {}, "session_id": sid})
        assert r["error"]["code"] in (-32602, -32603)
    finally:
        rpc("openenv/session/close", {"session_id": sid})
    # Over the /ws session's mcp message the tool shares the step interpreter.
    s = RawSession(server.ws_url("/ws"))
    try:
        s.step("from_step = 'yes'")
        r = s.request({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                               "params": {"name": "run_python", "arguments": {"code": "from_step"}}}})
        assert r["type"] == "mcp" and r["data"]["result"]["data"]["stdout"] == "\"yes\""
    finally:
        s.close()


def test_bad_plugin_config_is_refused(envhost_server):
    srv = envhost_server(plugins=["coding_env"], wait=False,
                         config={"environments": {"coding_env": {"config": {"timeout": 5}}}})
    deadline = time.time() + 15
    while "unknown key 'timeout'" not in srv.log() and srv.alive() and time.time() < deadline:
        time.sleep(0.05)
    if srv.alive():
        # The host may keep running without the environment; it must not serve it.
        assert requests.post(srv.url("/step"), json={"action": {"code": "1"}}).status_code != 200
    assert "unknown key 'timeout'" in srv.log()


def test_unsandboxed_mode_logs_a_warning(envhost_server):
    srv = envhost_server(plugins=["coding_env"],
                         config={"environments": {"coding_env": {"config": {"sandbox": False, "pool_size": 1}}}})
    assert "SANDBOX DISABLED" in srv.log()
    r = requests.post(srv.url("/step"), json={"action": {"code": "import os\nos.getpid() != 1"}}).json()
    assert r["observation"]["stdout"] == "true"


def test_interpreter_starts_with_no_blocked_signals(server):
    # envhost blocks SIGTERM/SIGINT in its own threads; the sandbox must not inherit that.
    s = RawSession(server.ws_url("/ws"))
    try:
        s.reset()
        r = s.step("import signal\nsorted(int(x) for x in signal.pthread_sigmask(signal.SIG_BLOCK, []))")
        assert r["data"]["observation"]["stdout"] == "[]"
        r = s.step("signal.getsignal(signal.SIGTERM) == signal.SIG_DFL")
        assert r["data"]["observation"]["stdout"] == "true"
    finally:
        s.close()


TAMPER_WITH_DRIVER = r"""
import gc
for f in gc.get_objects():
    code = getattr(f, "__code__", None)
    if getattr(f, "__name__", "") == "run" and code is not None and "_compile" in code.co_freevars:
        cell = f.__closure__[code.co_freevars.index("_compile")]
        real = cell.cell_contents
        def lenient(src, name, mode, flags=0, *rest, _real=real):
            try:
                return _real(src, name, mode, flags, *rest)
            except SyntaxError:
                return _real("pass", name, mode, flags, *rest)
        cell.cell_contents = lenient
"""


def test_reward_survives_a_tampered_interpreter(server):
    # Code may rewrite its own session's driver; the syntax reward term must not trust it.
    s = RawSession(server.ws_url("/ws"))
    try:
        s.reset()
        assert s.step(TAMPER_WITH_DRIVER)["data"]["observation"]["exit_code"] == 0
        r = s.step("print('unclosed")
        assert r["data"]["observation"]["exit_code"] == 0  # the tampering worked inside the session...
        assert r["data"]["reward"] == pytest.approx(-0.1)  # ...but the reward still sees the syntax error
        assert s.step("x = 1")["data"]["reward"] == pytest.approx(0.1)
    finally:
        s.close()
