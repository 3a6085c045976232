"""The unmodified OpenEnv Python client (openenv-core from PyPI) against envhost."""
import asyncio

import pytest
from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient

from conftest import wait_active_sessions


@pytest.fixture
def echo(envhost_server):
    return envhost_server(plugins=["echo_env"])


def call_tool_action(tool, **arguments):
    return {"type": "call_tool", "tool_name": tool, "arguments": arguments}


def test_generic_client_async(echo):
    async def run():
        async with GenericEnvClient(base_url=echo.base_url) as env:
            r = await env.reset(episode_id="episode-1")
            assert r.observation == {} and r.reward == 0.0 and r.done is False
            r = await env.step(call_tool_action("echo_message", message="hello"))
            assert r.observation["result"]["data"] == "hello"
            r = await env.step(call_tool_action("echo_with_length", message="hello"))
            assert r.observation["result"]["data"] == {"message": "hello", "length": 5}
            state = await env.state()
            assert state == {"episode_id": "episode-1", "step_count": 2}
    asyncio.run(run())


def test_generic_client_sync_and_env_prefix(echo):
    for base in (echo.base_url, echo.url("/envs/echo_env")):
        with GenericEnvClient(base_url=base).sync() as env:
            env.reset()
            r = env.step(call_tool_action("nope"))
            assert r.observation["result"] is None
            assert r.observation["error"] == {"error_type": "tool_not_found", "message": "Unknown tool: 'nope'"}
            assert env.state()["step_count"] == 1


def test_generic_client_reports_server_errors(echo):
    with GenericEnvClient(base_url=echo.base_url).sync() as env:
        env.reset()
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step({"tool_name": 5})
        assert env.step(call_tool_action("echo_message", message="still fine")).observation["result"]["data"] == "still fine"


def test_mcp_tool_client_over_ws(echo):
    async def run():
        async with MCPToolClient(base_url=echo.base_url) as env:
            await env.reset()
            tools = await env.list_tools()
            assert [t.name for t in tools] == ["echo_message", "echo_with_length"]
            assert all(isinstance(t.description, str) and t.description for t in tools)
            assert await env.call_tool("echo_message", message="ws") == "ws"
            assert await env.call_tool("echo_with_length", message="abc") == {"message": "abc", "length": 3}
    asyncio.run(run())


def test_mcp_tool_client_production_mode(envhost_server):
    srv = envhost_server(plugins=["echo_env"], args=["--mode", "production"])

    async def run():
        env = MCPToolClient(base_url=srv.base_url)
        env.use_production_mode = True
        async with env:
            tools = await env.list_tools()
            assert [t.name for t in tools] == ["echo_message", "echo_with_length"]
            assert await env.call_tool("echo_message", message="prod") == "prod"
            assert await env.call_tool("echo_with_length", message="prod") == {"message": "prod", "length": 4}
            sid = env._production_session_id
            assert sid
        wait_active_sessions(srv, "echo_env", 0)  # closing the client closed its server-side session
    asyncio.run(run())


def test_mcp_tool_client_sync(echo):
    with MCPToolClient(base_url=echo.base_url).sync() as env:
        env.reset()
        assert env.call_tool("echo_message", message="sync") == "sync"
