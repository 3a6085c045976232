"""coding_env for the reference side: Python through smolagents' LocalPythonExecutor.

Mirrors OpenEnv's coding_env as the protocol page (section 7) describes it:
a persistent AST interpreter per session, cleared on reset; stdout is the
prints followed by the JSON (or repr) of the last expression's value; errors
give exit code 1; the reward comes from the code text only. Written for this
benchmark.
"""

import ast
import json
import re
from typing import Any, Optional
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from smolagents import LocalPythonExecutor

# The reference's allowlist, on top of smolagents' base modules.
EXTRA_IMPORTS = ["collections", "datetime", "itertools", "math", "queue", "random",
                 "re", "stat", "statistics", "time", "unicodedata"]
DANGEROUS = [re.compile(p) for p in (r"import\s+os", r"import\s+subprocess", r"eval\(",
                                     r"exec\(", r"__import__", r"open\(")]


class CodeAction(Action):
    code: str


class CodeObservation(Observation):
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


class CodeState(State):
    last_exit_code: int = 0


def reward_for(code: str) -> float:
    """Safety (-1 for a dangerous pattern) plus quality (+0.1 short, -0.2 bad syntax)."""
    reward = -1.0 if any(p.search(code) for p in DANGEROUS) else 0.0
    if len(code.strip()) <= 100:
        reward += 0.1
    try:
        ast.parse(code)
    except SyntaxError:
        reward -= 0.2
    return reward


def _render(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


class CodingEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = CodeState(episode_id=str(uuid4()))
        self._executor = self._new_executor()

    @staticmethod
    def _new_executor() -> LocalPythonExecutor:
        executor = LocalPythonExecutor(additional_authorized_imports=EXTRA_IMPORTS)
        executor.send_tools({})  # installs the base Python builtins
        return executor

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None,
              **kwargs: Any) -> CodeObservation:
        self._executor = self._new_executor()
        self._state = CodeState(episode_id=str(uuid4()))
        return CodeObservation(reward=0.0)

    def step(self, action: CodeAction, timeout_s: Optional[float] = None,
             **kwargs: Any) -> CodeObservation:
        try:
            result = self._executor(action.code)
            parts = [result.logs] if result.logs else []
            if result.output is not None:
                parts.append(_render(result.output))
            stdout, stderr, exit_code = "\n".join(parts), "", 0
        except Exception as exc:  # the interpreter reports every failure as an exception
            stdout, stderr, exit_code = "", f"{type(exc).__name__}: {exc}", 1
        self._state.step_count += 1
        self._state.last_exit_code = exit_code
        return CodeObservation(stdout=stdout, stderr=stderr, exit_code=exit_code,
                               reward=reward_for(action.code))

    @property
    def state(self) -> CodeState:
        return self._state
