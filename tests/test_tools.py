import json
from typing import Annotated

import pytest
from pydantic import Field

from toolgym.envs import World, tool
from toolgym.envs.tools import parse_docstring
from toolgym.errors import DomainError


def test_schema_comes_from_signature_and_docstring(toy_domain):
    schema = toy_domain.tool("close_account").schema
    function = schema["function"]
    assert schema["type"] == "function"
    assert function["name"] == "close_account"
    assert function["description"] == "Close an active account."
    params = function["parameters"]
    assert params["required"] == ["account_id", "reason"]
    assert params["properties"]["reason"]["enum"] == ["moving", "too expensive", "other"]
    assert params["properties"]["account_id"] == {"type": "string", "description": "The account id."}
    assert "world" not in params["properties"]


def test_missing_description_fails_at_load_naming_tool_and_parameter():
    with pytest.raises(DomainError, match=r"'undocumented'.*'count' has no description"):

        @tool
        def undocumented(world: World, count: int) -> int:
            """Does something."""
            return count


def test_missing_annotation_and_world_parameter_fail():
    with pytest.raises(DomainError, match="no type annotation"):

        @tool
        def untyped(world: World, x) -> None:
            """Doc.

            Args:
                x: a value.
            """

    with pytest.raises(DomainError, match="first parameter must be `world: World`"):

        @tool
        def no_world(x: int) -> None:
            """Doc.

            Args:
                x: a value.
            """


def test_annotated_description_is_accepted():
    @tool
    def annotated(world: World, n: Annotated[int, Field(description="How many.")] = 2) -> int:
        """Count things."""
        return n

    assert annotated.schema["function"]["parameters"]["properties"]["n"]["description"] == "How many."


def test_docstring_parser_handles_continuations():
    description, args = parse_docstring(
        """Do a thing.

        Longer text.

        Args:
            a: first line
                continued here.
            b (int): second.

        Returns:
            nothing.
        """
    )
    assert description == "Do a thing. Longer text."
    assert args == {"a": "first line continued here.", "b": "second."}


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"account_id": "A001", "reason": "bored"}, "parameter 'reason' got 'bored'"),
        ({"account_id": "A001"}, "missing required parameter 'reason'"),
        ({"account_id": "A001", "reason": "moving", "force": True}, "unknown parameter of close_account: 'force'"),
        ('{"account_id": "A001", "reason": ', "not valid JSON"),
        ([1, 2], "must be a JSON object"),
        ({"account_id": "A999", "reason": "moving"}, "account 'A999' not found"),
    ],
)
def test_bad_calls_become_error_messages(toy_domain, arguments, expected):
    world = toy_domain.new_world(seed=0, size="small")
    outcome = toy_domain.tool("close_account").run(world, arguments)
    assert outcome.error and expected in outcome.error, outcome.error
    assert json.loads(outcome.content) == {"error": outcome.error}
    assert not world.changes


def test_literal_error_names_allowed_values(toy_domain):
    world = toy_domain.new_world(seed=0, size="small")
    error = toy_domain.tool("close_account").run(world, {"account_id": "A001", "reason": "bored"}).error
    assert "'moving'" in error and "'too expensive'" in error


def test_arguments_are_parameters_not_sql(toy_domain):
    world = toy_domain.new_world(seed=0, size="small")
    outcome = toy_domain.tool("find_account").run(world, {"email": "x' OR '1'='1"})
    assert outcome.error and "no account" in outcome.error


def test_user_caller_flag():
    @tool(caller="user")
    def toggle(world: World, on: bool) -> bool:
        """Toggle a switch on the phone.

        Args:
            on: Whether to switch it on.
        """
        return on

    assert toggle.caller == "user" and not toggle.writes
    with pytest.raises(DomainError, match="caller must be"):
        tool(caller="robot")(toggle.func)


def test_unknown_tool_gets_did_you_mean(toy_domain):
    from toolgym.envs.replay import run_call

    world = toy_domain.new_world(seed=0, size="small")
    outcome = run_call(toy_domain, world, ["close_account", "find_account"], "close_acount", {})
    assert "did you mean 'close_account'" in outcome.error
    hidden = run_call(toy_domain, world, ["find_account"], "close_account", {})
    assert "unknown tool 'close_account'" in hidden.error  # withheld tools are not callable


def test_an_evidence_fragment_is_written_as_the_tools_results_write_it():
    """`shown_as` gives fields side by side as a tool result encodes them, so a step's evidence is
    found in the result (a vehicle zone's reading, a phone's switch)."""
    import toolgym
    from toolgym.envs import shown_as

    domain = toolgym.load_domain("vehicle")
    task = next(iter(domain.generate_tasks(1, seed=5, kinds=["single"], size="small")))
    result = domain.tool("get_climate").run(domain.new_world(task), {}).content
    zone = json.loads(result)["zones"][0]
    fragment = shown_as(zone=zone["zone"], temperature_c=zone["temperature_c"])
    assert fragment.startswith('"zone":') and fragment in result
    assert shown_as(locked=False, level=2, name="Ann") == '"locked":false,"level":2,"name":"Ann"'
