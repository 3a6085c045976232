"""The reference server: openenv-core's own create_app around one of our envs.

Run by uvicorn as `app:app` (so that --workers works). BENCH_ENV picks the
environment, BENCH_MAX_SESSIONS raises max_concurrent_envs (the reference's
default is 1) to what the scenario needs.
"""

import os

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation

_NAME = os.environ.get("BENCH_ENV", "echo_env")
_MAX = int(os.environ.get("BENCH_MAX_SESSIONS", "8"))

if _NAME == "echo_env":
    from echo_env import EchoEnvironment
    app = create_app(EchoEnvironment, CallToolAction, CallToolObservation,
                     env_name=_NAME, max_concurrent_envs=_MAX)
elif _NAME == "coding_env":
    from coding_env import CodeAction, CodeObservation, CodingEnvironment
    app = create_app(CodingEnvironment, CodeAction, CodeObservation,
                     env_name=_NAME, max_concurrent_envs=_MAX)
else:
    raise SystemExit(f"unknown BENCH_ENV {_NAME!r}")
