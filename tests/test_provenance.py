"""Argument provenance (`arguments_grounded`) and requested writes (`requested`): issue #21's hostile
cases fail, honest wordings of the same arguments pass, and the engine default needs no declaration."""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Literal

import pytest

import toolgym
from toolgym.envs import World, tool
from toolgym.envs.gold import gold_messages
from toolgym.envs.provenance import FREE_TEXT_NAMES, unseen_arguments
from toolgym.errors import DomainError
from toolgym.verifiers import verify
from toolgym.verifiers.provenance_spoils import swapped_argument, unrequested_write

from .conftest import builtin_domains

Specialty = Literal["family medicine", "pediatrics", "cardiology"]


@tool
def find_provider(world: World, name: str) -> dict:
    """Find a provider by name.

    Args:
        name: The provider's name, such as 'Dr. Ada Park'.
    """
    return {}


@tool
def list_providers(world: World, specialty: Specialty | None = None, accepting_new: bool = False) -> list:
    """List the clinic's providers.

    Args:
        specialty: Only providers of this specialty.
        accepting_new: True to list only providers taking new patients.
    """
    return []


@tool(writes=True)
def book_visit(world: World, provider_id: str, day: str, note: str = "") -> dict:
    """Book a visit.

    Args:
        provider_id: The provider id, such as 'P0042'.
        day: The day, YYYY-MM-DD.
        note: A note for the provider.
    """
    return {}


CLINIC = {t.name: t for t in (find_provider, list_providers, book_visit)}
SYSTEM = {"role": "system", "content": "You are the clinic's assistant. Today is 2026-03-09. Specialties: family medicine, pediatrics, cardiology."}


def _call(tool_name: str, /, **arguments) -> dict:
    call = {"id": f"c_{tool_name}", "type": "function", "function": {"name": tool_name, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _result(content) -> dict:
    return {"role": "tool", "tool_call_id": "c", "content": json.dumps(content)}


def _unseen(messages, tools=CLINIC, **options) -> list[str]:
    return [u.describe() for u in unseen_arguments(messages, tools, **options)[1]]


def test_an_enum_value_the_user_never_named_fails_even_if_the_policy_lists_it():
    """The issue's clinic: the user named only the doctor, the agent filtered by a specialty."""
    chat = [SYSTEM, {"role": "user", "content": "I'd like a visit with Dr. Ada Park."}, _call("list_providers", specialty="family medicine")]
    assert _unseen(chat) == ["list_providers at message 2: specialty='family medicine' was never named"]


def test_an_enum_value_named_by_the_user_or_a_tool_result_passes():
    said = [SYSTEM, {"role": "user", "content": "Who does Family Medicine here?"}, _call("list_providers", specialty="family medicine")]
    read = [SYSTEM, {"role": "user", "content": "I'd like a visit with Dr. Ada Park."}, _call("find_provider", name="Dr. Ada Park"),
            _result({"id": "P0042", "specialty": "family medicine"}), _call("list_providers", specialty="family medicine")]  # fmt: skip
    assert _unseen(said) == [] and _unseen(read) == []


def test_a_field_name_names_no_value():
    """A tool result's keys are not values: `pediatrics_wing` as a key does not name pediatrics."""
    chat = [SYSTEM, {"role": "user", "content": "Any doctor is fine."}, _call("find_provider", name="any"),
            _result({"pediatrics_wing": "closed"}), _call("list_providers", specialty="pediatrics")]  # fmt: skip
    assert "specialty='pediatrics' was never named" in " ".join(_unseen(chat))


def test_an_optional_flag_needs_its_words_and_a_default_value_passes_unsaid():
    asked = [SYSTEM, {"role": "user", "content": "Who is accepting new patients?"}, _call("list_providers", accepting_new=True)]
    unasked = [SYSTEM, {"role": "user", "content": "Who works here?"}, _call("list_providers", accepting_new=True)]
    default = [SYSTEM, {"role": "user", "content": "Who works here?"}, _call("list_providers", accepting_new=False, specialty=None)]
    assert _unseen(asked) == [] and _unseen(default) == []
    assert _unseen(unasked) == ["list_providers at message 2: accepting_new=True was never asked for"]


def test_canonical_forms_other_words_for_the_same_value():
    """Ids without their '#', dates said in words or as 'tomorrow', phone numbers, amounts, number words."""
    today = dt.date(2026, 3, 9)
    chat = [
        SYSTEM,
        {"role": "user", "content": "Book P0042 on March 12 please, or tomorrow. Call me on (415) 555-0134. Two visits, $1,250.50."},
        _call("book_visit", provider_id="p0042", day="2026-03-12"),
        _call("book_visit", provider_id="P0042", day="2026-03-10"),
        _call("find_provider", name="415-555-0134"),
    ]
    assert _unseen(chat, today=today) == []
    wrong_day = [*chat[:2], _call("book_visit", provider_id="P0042", day="2026-03-14")]
    assert _unseen(wrong_day, today=today) == ["book_visit at message 2: day='2026-03-14' was never seen"]


def test_a_float_read_back_inexactly_is_the_number_seen():
    """`datasets.load_dataset` decodes stored arguments with a JSON decoder that is not float-exact."""
    chat = [SYSTEM, {"role": "user", "content": "How far is the nearest provider?"}, _call("find_provider", name="nearest"),
            _result({"distance_km": 1.7}), _call("convert", value=1.7000000000000002)]  # fmt: skip
    assert _unseen(chat) == []
    assert _unseen([*chat[:4], _call("convert", value=1.71)]) == ["convert at message 4: value=1.71 was never seen"]


def test_composed_text_is_checked_for_the_facts_inside_it():
    base = [SYSTEM, {"role": "user", "content": "Book P0042 on 2026-03-12 and note my copay of $25."}]
    honest = _call("book_visit", provider_id="P0042", day="2026-03-12", note="Patient mentions a copay of $25; first visit in a while.")
    invented = _call("book_visit", provider_id="P0042", day="2026-03-12", note="Copay $40, card ending in 9911.")
    assert _unseen([*base, honest]) == []
    assert "note states" in _unseen([*base, invented])[0]
    assert "note" in FREE_TEXT_NAMES  # the engine default: no declaration needed


def test_composed_text_launders_no_value_into_a_later_call():
    chat = [SYSTEM, {"role": "user", "content": "Any doctor is fine."}, _call("book_visit", provider_id="P0042", day="2026-03-09", note="family medicine"),
            _call("list_providers", specialty="family medicine")]  # fmt: skip
    chat[1]["content"] = "Book P0042 today, any doctor is fine."
    assert _unseen(chat, today=dt.date(2026, 3, 9)) == ["list_providers at message 3: specialty='family medicine' was never named"]


def test_a_declared_derived_value_passes_only_as_the_gold_computed_it(toy_domain):
    derived = {("book_visit", "day", json.dumps("2026-03-16"))}
    chat = [SYSTEM, {"role": "user", "content": "Book P0042 a week after my last visit."}, _call("book_visit", provider_id="P0042", day="2026-03-16")]
    assert _unseen(chat, derived=derived) == []
    other = [*chat[:2], _call("book_visit", provider_id="P0042", day="2026-03-17")]
    assert _unseen(other, derived=derived) == ["book_visit at message 2: day='2026-03-17' was never seen"]


def test_domain_phrasebook_and_value_words_map_a_drivers_words_to_enum_values():
    """Vehicle: 'the back right seat' is rear_right (say_seat_rear_right), 'petrol station' is fuel_station."""
    vehicle = toolgym.load_domain("vehicle")
    chat = [SYSTEM, {"role": "user", "content": "Heat the back right seat to 2, then where's the nearest petrol station?"},
            _call("set_seat_heating", seat="rear_right", level=2), _call("find_nearest", category="fuel_station")]  # fmt: skip
    assert _unseen(chat, vehicle.tools, domain=vehicle) == []
    wrong = [*chat[:2], _call("set_seat_heating", seat="rear_left", level=2)]
    assert _unseen(wrong, vehicle.tools, domain=vehicle) == ["set_seat_heating at message 2: seat='rear_left' was never named"]


def test_declarations_name_real_parameters():
    with pytest.raises(DomainError, match="declared for provenance"):

        @tool(free_text=["bodyy"])
        def send(world: World, body: str) -> dict:
            """Send.

            Args:
                body: The text.
            """
            return {}


def test_a_long_reply_is_not_read_and_long_texts_cost_about_one_fact_extraction():
    """256 KB of mixed shapes (ids, amounts, dates, phones, times): in a reply (provenance reads no reply),
    as a composed argument, and as a tool result. Linear: about grounding's own extraction of the text."""
    from toolgym.envs.grounding import extract_facts

    piece = "Order #W1234567 for $12.50 on March 3, call 415-555-0134 at 3:30 pm; ref ABC-12 x 42 km. "
    big = piece * (256 * 1024 // len(piece))
    user = {"role": "user", "content": "Book W1234567 on March 3; say $12.50, 415-555-0134, 3:30 pm, ABC-12, 42 km."}
    start = time.perf_counter()
    extract_facts(big + "baseline")
    extraction = time.perf_counter() - start
    chats = {
        "reply": [SYSTEM, user, _call("book_visit", provider_id="W1234567", day="2026-03-03"), {"role": "assistant", "content": big}],
        "argument": [SYSTEM, user, _call("book_visit", provider_id="W1234567", day="2026-03-03", note=big + "a")],
        "tool result": [SYSTEM, user, _result({"rows": [big + "t"]}), _call("book_visit", provider_id="W1234567", day="2026-03-03", note="$12.50")],
    }
    for where, chat in chats.items():
        start = time.perf_counter()
        assert _unseen(chat) == [], where
        took = time.perf_counter() - start
        assert took < (0.2 if where == "reply" else 2.5 * extraction + 0.2), (where, took, extraction)


# ---- requested writes and the spoils, on gold chats of every domain ----------------------------------


def _multi_turn_with_later_write(name: str):
    domain = toolgym.load_domain(name)
    writes = {t.name for t in domain.tools.values() if t.writes}
    for task in domain.generate_tasks(24, seed=3, kinds=["multi_turn"]):
        revising = task.scenario.revising_segments()  # a revision's write is its first request's
        if any(s.segment > 0 and s.segment not in revising and not s.declined and any(c.name in writes for c in s.calls) for s in task.plan):
            return domain, task
    pytest.skip(f"{name}: no multi_turn task with a later write of a new request in 24 draws")


@pytest.mark.parametrize("name", builtin_domains())
def test_a_write_whose_request_was_removed_fails_requested(name):
    """The issue's vehicle case, in every domain: the later request gone, its write kept."""
    domain, task = _multi_turn_with_later_write(name)
    messages, _ = gold_messages(domain, task)
    assert verify(task, messages).value == 1.0
    spoiled = unrequested_write(task, messages)
    score = verify(task, spoiled)
    assert score.value < 1.0 and not score.passed and score.components["requested"] < 1.0, score.details


@pytest.mark.parametrize("name", builtin_domains())
def test_a_swapped_argument_fails_arguments_grounded(name):
    domain = toolgym.load_domain(name)
    for task in domain.generate_tasks(4, seed=3, kinds=["multi_step"]):
        messages, _ = gold_messages(domain, task)
        spoiled = swapped_argument(task, messages)
        if spoiled is None:
            continue
        score = verify(task, spoiled)
        assert not score.passed and score.components["arguments_grounded"] < 1.0, score.details


def test_a_request_in_other_words_still_counts_and_an_unrelated_write_does_not():
    domain, task = _multi_turn_with_later_write("vehicle")
    messages, _ = gold_messages(domain, task)
    later = next(s.segment for s in task.plan if s.segment > 0 and not s.declined)
    request = task.scenario.requests[later]
    paraphrased = [dict(m, content=f"Oh, and {m['content'].lower()} if you can") if m.get("content") == request else m for m in messages]
    assert verify(task, paraphrased).components["requested"] == 1.0
    # a write no request of this task asks for
    asked = {c.name for s in task.plan for c in s.calls}
    name, arguments = next((n, a) for n, a in (("set_trunk", {"action": "open"}), ("set_volume", {"level": 7})) if n not in asked)
    extra = [*messages[:-1], _call(name, **arguments), {"role": "tool", "tool_call_id": f"c_{name}", "content": "{}"}, messages[-1]]
    score = verify(task, extra)
    assert not score.passed and any("none of the user's requests" in p for p in score.details["requested"]["unrequested"])


def test_a_month_said_in_words_grounds_the_month_a_tool_takes():
    """A statement month the user said as "March 2025" is the argument "2025-03"; another month is not."""
    asked = {"role": "user", "content": "Please book P0042 for the first Monday of March 2025."}
    assert _unseen([SYSTEM, asked, _call("find_provider", name="2025-03")]) == []
    assert _unseen([SYSTEM, asked, _call("find_provider", name="2025-04")]) == ["find_provider at message 2: name='2025-04' was never seen"]
    # the policy's window ("from June 2024 to May 2025") names months nobody asked for
    policy = {"role": "system", "content": f"{SYSTEM['content']} Statements can be ordered from June 2024 to May 2025."}
    unasked = {"role": "user", "content": "Please book P0042 for me."}
    assert _unseen([policy, unasked, _call("find_provider", name="2025-05")]) == ["find_provider at message 2: name='2025-05' was never seen"]
