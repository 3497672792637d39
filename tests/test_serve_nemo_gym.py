"""NeMo Gym's own `gymnasium_agent` and HTTP client over toolgym's resources server, on 127.0.0.1.

NeMo Gym needs Python >= 3.12, so this module runs in an environment with `toolgym[nemo-gym]` on that
Python (docs/rl.md, "NeMo Gym") and is skipped elsewhere. The model server is scripted (it answers
each turn with the next turn of the gold, in the Responses API's shape); the agent loop, its HTTP
client, its session cookies and the resources server are NeMo Gym's and toolgym's own code.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from unittest.mock import MagicMock

import pytest

pytest.importorskip("nemo_gym", reason="NeMo Gym needs Python >= 3.12 and is not installed here")

import nemo_gym.server_utils as nemo_server_utils  # noqa: E402
from aiohttp import ClientResponseError  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from nemo_gym.config_types import ModelServerRef, ResourcesServerRef  # noqa: E402
from nemo_gym.server_utils import (  # noqa: E402
    BaseServerConfig,
    GlobalAIOHTTPAsyncClientConfig,
    ServerClient,
    set_global_aiohttp_client,
)
from omegaconf import OmegaConf  # noqa: E402
from responses_api_agents.gymnasium_agent.app import (  # noqa: E402
    GymnasiumAgent,
    GymnasiumAgentConfig,
    GymnasiumAgentRunRequest,
)

from tests.conftest import builtin_domains  # noqa: E402
from tests.serving import DO_NOTHING, gold, running  # noqa: E402
from toolgym.errors import ConfigError  # noqa: E402
from toolgym.integrations.nemo_gym import (  # noqa: E402
    ToolgymResourcesServer,
    ToolgymResourcesServerConfig,
    responses_rows,
    task_of,
)


class _ScriptedModel:
    """A Responses API model server whose turns are fixed in advance (the gold's, or "OK.")."""

    def __init__(self):
        self.turns: list[dict] = []
        self.app = FastAPI()
        self.app.post("/v1/responses")(self.respond)

    async def respond(self, request: Request) -> dict:
        await request.json()
        move = self.turns.pop(0) if self.turns else {"content": DO_NOTHING}
        output = [
            {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:8]}", "call_id": call["id"], "name": call["function"]["name"],
             "arguments": json.dumps(call["function"]["arguments"]), "status": "completed"}
            for call in move.get("tool_calls") or []
        ]  # fmt: skip
        if move.get("content"):
            output.append({"type": "message", "id": f"msg_{uuid.uuid4().hex[:8]}", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": move["content"], "annotations": []}]})  # fmt: skip
        return {"id": f"resp_{uuid.uuid4().hex[:8]}", "created_at": time.time(), "model": "scripted", "object": "response",
                "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def stack():
    config = ToolgymResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="", name="toolgym")
    resources = ToolgymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))
    model = _ScriptedModel()
    with running(resources.setup_webserver()) as resources_url, running(model.app) as model_url:
        global_config = OmegaConf.create({
            "toolgym_resources_server": {"resources_servers": {"toolgym": {"host": "127.0.0.1", "port": _port(resources_url)}}},
            "policy_model": {"responses_api_models": {"scripted": {"host": "127.0.0.1", "port": _port(model_url)}}},
        })  # fmt: skip
        client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=1), global_config_dict=global_config)
        agent = GymnasiumAgent(
            config=GymnasiumAgentConfig(
                host="127.0.0.1", port=0, entrypoint="", name="toolgym_agent", max_steps=60,
                resources_server=ResourcesServerRef(type="resources_servers", name="toolgym_resources_server"),
                model_server=ModelServerRef(type="responses_api_models", name="policy_model"),
            ),
            server_client=client,
        )  # fmt: skip
        yield agent, model


def _rollout(agent, row: dict):
    async def run():
        nemo_server_utils._GLOBAL_AIOHTTP_CLIENT = None  # one client per event loop
        session = set_global_aiohttp_client(GlobalAIOHTTPAsyncClientConfig())
        try:
            request = MagicMock(cookies={})
            return await agent.run(request, GymnasiumAgentRunRequest.model_validate(row))
        finally:
            await session.close()
            nemo_server_utils._GLOBAL_AIOHTTP_CLIENT = None

    return asyncio.run(run())


def test_gymnasium_agent_scores_the_gold_full_and_doing_nothing_below(stack):
    agent, model = stack
    played = [gold(domain, 4)[index] for domain, index in zip(builtin_domains(), itertools.cycle((1, 2)), strict=False)]
    rows = responses_rows([task for task, _ in played])
    for (task, moves), row in zip(played, rows, strict=True):
        model.turns = [dict(m) for m in moves]
        result = _rollout(agent, row)
        assert result.reward == 1.0 and result.terminated, (task.id, result.info)
        assert result.info["verification"]["passed"]
        sent = [item for item in result.response.output if getattr(item, "type", None) == "function_call_output"]
        assert len(sent) == sum(len(m.get("tool_calls") or []) for m in moves)  # each call's result went back by call_id

        model.turns = []
        lazy = _rollout(agent, row)
        assert lazy.reward < 1.0 and not lazy.info["verification"]["passed"], task.id


def test_a_row_without_its_task_is_refused_by_name(stack):
    agent, _ = stack
    row = responses_rows([gold("retail", 4)[0][0]])[0]
    del row["task"]
    with pytest.raises(ClientResponseError) as raised:
        _rollout(agent, row)
    assert raised.value.status == 400 and b"`task` column" in raised.value.response_content


def test_open_worlds_are_bounded_oldest_closed_first():
    config = ToolgymResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="", name="toolgym", max_sessions=2)
    server = ToolgymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))
    task, _ = gold("retail", 4)[0]

    async def run():
        for session in ("a", "b", "c"):
            await server.reset({"task": task.model_dump_json()}, session)
        return list(server.session_state)

    assert asyncio.run(run()) == ["b", "c"]


def test_rows_carry_the_system_prompt_tools_and_task():
    task, _ = gold("banking", 4)[0]
    (row,) = responses_rows([task])
    params = row["responses_create_params"]
    assert params["input"][0]["role"] == "system" and {t["name"] for t in params["tools"]} == set(task.tools)
    assert all(t["type"] == "function" and "parameters" in t for t in params["tools"])
    with pytest.raises(ConfigError, match="`task` column"):
        task_of({"responses_create_params": {}})
