"""echo_env for the reference side: an MCP tool environment on openenv-core.

Mirrors the behaviour of OpenEnv's echo_env (see the protocol page, section 7):
two FastMCP tools reached through MCPEnvironment, every step counted, reset
returning an empty observation with reward 0.0. Written for this benchmark.
"""

from typing import Any, Optional
from uuid import uuid4

from fastmcp import FastMCP
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.types import Action, Observation, State


def _tool_server() -> FastMCP:
    server = FastMCP("echo_env")

    @server.tool
    def echo_message(message: str) -> str:
        """Echo the message back unchanged."""
        return message

    @server.tool
    def echo_with_length(message: str) -> dict:
        """Echo the message back together with its length."""
        return {"message": message, "length": len(message)}

    return server


class EchoEnvironment(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        # Each instance owns its own FastMCP server, as the reference does.
        super().__init__(_tool_server())
        self._state = State(episode_id=str(uuid4()), step_count=0)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None,
              **kwargs: Any) -> Observation:
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        return Observation(done=False, reward=0.0)

    # The WebSocket path calls step_async, HTTP /step calls step: count both.
    def step(self, action: Action, timeout_s: Optional[float] = None, **kwargs: Any) -> Observation:
        self._state.step_count += 1
        return super().step(action, timeout_s=timeout_s, **kwargs)

    async def step_async(self, action: Action, timeout_s: Optional[float] = None,
                         **kwargs: Any) -> Observation:
        self._state.step_count += 1
        return await super().step_async(action, timeout_s=timeout_s, **kwargs)

    def _step_impl(self, action: Action, timeout_s: Optional[float] = None,
                   **kwargs: Any) -> Observation:
        # Only MCP actions are valid here; MCPEnvironment routes those itself.
        return Observation(done=False, reward=0.0,
                           metadata={"error": f"unsupported action {type(action).__name__}"})

    @property
    def state(self) -> State:
        return self._state
