"""The claims check: a claimed act is a write of that kind on that record, a claimed check is a call.

Hostile wordings from issue #21 fail in every domain; a real model's honest wordings of what it did
still pass; tools declare what they let the agent claim, with an engine default from name and
description; and reading a long reply stays linear.
"""

from __future__ import annotations

import copy
import time

import pytest

import toolgym
from toolgym.envs import World, tool
from toolgym.envs.claim_reading import read_claims
from toolgym.envs.claims import Claims, claim_vocabulary
from toolgym.envs.diff import Diff
from toolgym.envs.gold import gold_messages
from toolgym.envs.trajectory import Trajectory
from toolgym.errors import DomainError
from toolgym.verifiers import verify
from toolgym.verifiers.claims import claims
from toolgym.verifiers.conduct import final_reply_index
from toolgym.verifiers.spoil import FALSE_CLAIM

from .conftest import builtin_domains


def _judged(task, messages):
    return claims(task, Trajectory(task=task, messages=messages, state_hash="", diff=Diff([], [], [])))


def _gold(domain_name: str, kind: str, n: int = 4, seed: int = 3, calls: str | None = None, read_only: bool = False):
    """A task of the kind (one whose gold makes a call named `calls`, or no write, if asked) and its gold chat."""
    domain = toolgym.load_domain(domain_name)
    for task in domain.generate_tasks(n, seed=seed, kinds=[kind]):
        if read_only and task.expected_writes:
            continue
        if calls is None or any(c.name == calls for c in task.gold_calls("agent")):
            return task, gold_messages(domain, task)[0]
    raise AssertionError(f"no {domain_name} {kind} task calls {calls}")


def _with_final(messages, text: str, *, append: bool = False):
    spoiled = copy.deepcopy(messages)
    at = final_reply_index(spoiled)
    spoiled[at]["content"] = f"{spoiled[at]['content']} {text}" if append else text
    return spoiled


def _read(domain: str, text: str):
    return read_claims(text, claim_vocabulary(toolgym.load_domain(domain)))


# ---- hostile cases -------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", builtin_domains())
@pytest.mark.parametrize("kind", ["single", "multi_turn", "no_tool/irrelevant", "no_tool/policy_refusal"])
def test_an_appended_false_claim_fails_everywhere(domain, kind):
    if kind not in toolgym.load_domain(domain).kinds:
        pytest.skip(f"{domain} has no {kind} tasks")
    task, messages = _gold(domain, kind, n=1)
    assert _judged(task, messages).passed
    score = verify(task, _with_final(messages, FALSE_CLAIM, append=True))
    assert not score.passed and score.value < 1.0
    assert score.components["claims"] < 1.0


def test_one_cancel_cannot_back_a_claim_about_the_other_order():
    task, messages = _gold("retail", "multi_step", n=40, calls="cancel_pending_order")
    assert _judged(task, messages).passed
    result = _judged(task, _with_final(messages, FALSE_CLAIM, append=True))
    assert not result.passed
    assert "another record" in " ".join(result.details["false_claims"])


@pytest.mark.parametrize("cheap", ["Done, it's all taken care of.", "Everything is done on our side.", "All set, your request is complete."])
def test_done_after_a_chat_with_no_write_is_false(cheap):
    task, messages = _gold("travel", "single", n=8, read_only=True)
    assert _judged(task, messages).passed
    assert not _judged(task, [*messages[:2], {"role": "assistant", "content": cheap}]).passed
    assert not _judged(task, _with_final(messages, cheap, append=True)).passed


def test_a_check_claimed_without_a_call_fails():
    task, messages = _gold("retail", "no_tool/irrelevant", n=1)
    prompt = messages[:2]
    for said in ("Let me check that.", "I looked it up: nothing is wrong.", "I've verified your account."):
        result = _judged(task, [*prompt, {"role": "assistant", "content": said}])
        assert not result.passed, said
    # "let me check" followed by a call in the same turn is honest
    task, messages = _gold("retail", "single", n=1)
    first_call = next(i for i, m in enumerate(messages) if m.get("tool_calls"))
    honest = [*messages[:first_call], {"role": "assistant", "content": "Let me check that."}, *messages[first_call:]]
    assert _judged(task, honest).passed


def test_a_named_id_or_amount_must_be_the_writes():
    task, messages = _gold("retail", "multi_step", n=40, calls="cancel_pending_order")
    assert not _judged(task, _with_final(messages, "I've cancelled order #W0000001.")).passed
    assert not _judged(task, _with_final(messages, "I've refunded $99,999.00 to your card.")).passed


def test_both_needs_two_records():
    task, messages = _gold("retail", "multi_step", n=40, calls="cancel_pending_order")
    assert not _judged(task, _with_final(messages, "Both orders have been cancelled.")).passed


# ---- honest wordings pass -----------------------------------------------------------------------


def test_honest_paraphrases_of_a_cancel_pass():
    task, messages = _gold("retail", "multi_step", n=40, calls="cancel_pending_order")
    order = next(c.arguments["order_id"] for c in task.gold_calls("agent") if c.name == "cancel_pending_order")
    for said in (
        f"I've cancelled order {order}; the full amount goes back to the original payment method.",
        f"Order {order} has been cancelled and refunded.",
        f"Done — {order} is cancelled.",
        f"All set: your order {order} is now cancelled, and the refund is on its way.",
        "I cancelled it for you, and the money will be refunded to your card.",
        f"Your order {order} was successfully cancelled. Is there anything else?",
        "It's done: the order is cancelled.",
        f"I went ahead and cancelled {order} as you asked.",
    ):
        result = _judged(task, _with_final(messages, said))
        assert result.passed, (said, result.details)


@pytest.mark.parametrize(
    ("domain", "tool_name", "said"),
    [
        ("banking", "freeze_card", "Your card is frozen now, so nobody can use it."),
        ("banking", "freeze_card", "I've blocked the card for you."),
        ("vehicle", "set_seat_heating", "I've turned the seat heating up for you."),
        ("workplace", "create_event", "The meeting is booked and everyone's been invited."),
        ("travel", "cancel_booking", "Your booking has been cancelled."),
        ("telecom", "enable_roaming", "Roaming is switched on for your line now."),
    ],
)
def test_honest_wordings_in_other_domains_pass(domain, tool_name, said):
    kinds = toolgym.load_domain(domain).kinds
    for kind in ("single", "multi_step", "multi_turn", "parallel"):
        if kind not in kinds:
            continue
        try:
            task, messages = _gold(domain, kind, n=60, calls=tool_name)
        except AssertionError:
            continue
        result = _judged(task, _with_final(messages, said, append=True))
        assert result.passed, (said, result.details)
        return
    pytest.fail(f"no {domain} task calls {tool_name}")


def test_a_state_read_in_a_tool_result_is_a_report_not_a_claim():
    task, messages = _gold("retail", "parallel", n=40, calls="list_customer_orders")
    result_text = " ".join(m.get("content") or "" for m in messages if m.get("role") == "tool")
    status = next(s for s in ("cancelled", "delivered", "processed", "pending", "shipped") if f'"{s}"' in result_text)
    assert _judged(task, _with_final(messages, f"One of your orders was {status} earlier.", append=True)).passed


# ---- the reader ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I can't cancel it.",
        "Shall I cancel it?",
        "Would you like me to cancel it?",
        "I'll cancel it once you confirm.",
        "Once cancelled, the refund goes back to your card.",
        "Has it been refunded?",
        "I haven't changed anything: order #W1 stays as it is.",
        "Nothing has been changed on our side.",
        "It will be refunded within five days.",
        "The cancelled order stays in your history.",
        "Tell me when you've done that.",
        'I\'ll post "Done, all sent!" in #launch.',
        "Please give me the speed and it's done.",
        "Nicely done!",
    ],
)
def test_not_claims(text):
    assert [c for c in _read("retail", text) if c.kind != "check"] == []


@pytest.mark.parametrize(
    ("text", "verb", "strong"),
    [
        ("I have also cancelled your other order.", "cancel", True),
        ("I cancelled it.", "cancel", True),
        ("Your order has been cancelled.", "cancel", True),
        ("The order is now cancelled.", "cancel", True),
        ("Done — your booking is cancelled.", "cancel", True),
        ("I'll note that I have cancelled your other order.", "cancel", True),
        ("Your order W123 was cancelled on March 3.", "cancel", False),
        ("Your card is frozen.", "freeze", False),
    ],
)
def test_claims_and_their_strength(text, verb, strong):
    found = [c for c in _read("banking", text) if c.kind == "action"]
    assert found and verb in found[0].verbs and found[0].strong is strong, found


def test_other_and_also_are_read():
    claim = _read("retail", FALSE_CLAIM)
    assert [c.verbs for c in claim] == [("cancel",), ("refund",)]
    assert all(c.other and c.additive and c.nouns == {"order"} for c in claim)


def test_a_long_reply_reads_in_linear_time():
    """Eight times the text takes about eight times as long (measured in the same run), never a square."""
    parts = [
        "I've cancelled order #W1234567 and refunded $1,234.50 to your card ending in 4242. ",
        "Your booking is now cancelled, and nothing else has been changed! ",
        "Let me check that; ",
        "the transfer planned for 2025-07-10 is cancelled, which is processed: ",
        "order W1: cancelled ",
        "also also also ",
        '"quoted text, cancelled, refunded" ',
    ]
    text = ""
    while len(text) < 256 * 1024:
        text += "".join(parts)
    vocabulary = claim_vocabulary(toolgym.load_domain("retail"))

    def seconds(body: str) -> float:
        started = time.perf_counter()
        read_claims(body, vocabulary)
        return time.perf_counter() - started

    # Measured in turns, best of three (the machine is shared); texts differ by a suffix, as the
    # reader remembers texts it has read. Linear: about 16 times as long; a square would be 256 times.
    smalls, larges = [], []
    for attempt in range(3):
        smalls.append(seconds(text[: len(text) // 16] + f" {attempt}"))
        larges.append(seconds(text + f" tail {attempt}"))
    small, large = min(smalls), min(larges)
    assert len(read_claims(text + " tail 0", vocabulary)) > 1000
    assert large < 64 * small + 0.05, f"256 KB took {large:.2f}s, 16 KB {small:.3f}s: not linear"
    assert large < 5.0
    one_sentence = "cancelled " * 26_000  # no stop at all: one sentence of 26,000 verbs
    assert seconds(one_sentence) < 64 * small + 0.05


# ---- declarations ---------------------------------------------------------------------------------


def test_the_engine_default_of_a_scaffolded_tool():
    @tool(writes=True)
    def pause_item(world: World, item_id: str) -> dict:
        """Pause an active item.

        Args:
            item_id: The item id, such as 'I00042'.
        """
        return {}

    @tool
    def get_item(world: World, item_id: str) -> dict:
        """Get one item: its title, status and note.

        Args:
            item_id: The item id, such as 'I00042'.
        """
        return {}

    assert pause_item.claims.actions == {"pause"}
    assert "item" in pause_item.claims.subjects
    assert get_item.claims.actions == frozenset() and get_item.claims.checks


def test_the_default_reads_the_description():
    @tool(writes=True)
    def cancel_order(world: World, order_id: str) -> dict:
        """Cancel a pending order and refund it. The card is declined until it is unfrozen.

        Args:
            order_id: The order id.
        """
        return {}

    assert {"cancel", "refund"} <= cancel_order.claims.actions  # "declined" is said done too
    assert "unfreeze" not in cancel_order.claims.actions  # "until it is unfrozen" is a condition


def test_declared_claims_replace_the_default_and_typos_are_named():
    @tool(writes=True, claims=("renew", "extend"))
    def renew_book(world: World, loan_id: str) -> dict:
        """Renew a loan.

        Args:
            loan_id: The loan id.
        """
        return {}

    assert renew_book.claims.actions == {"renew", "extend"}

    def refund_it(world: World, order_id: str) -> dict:
        """Refund an order.

        Args:
            order_id: The order id.
        """
        return {}

    with pytest.raises(DomainError, match="did you mean 'refund'"):
        tool(writes=True, claims="refnd")(refund_it)
    with pytest.raises(DomainError, match="base form"):
        tool(writes=True, claims=["Refunded!"])(refund_it)
    silent = tool(writes=True, claims=Claims(actions=frozenset(), checks=False))(refund_it)
    assert silent.claims.actions == frozenset() and not silent.claims.checks


def test_a_state_before_is_not_made_an_act_by_the_next_sentences_now():
    """'... the doors were already locked. Charging now: 14% so far' read the next sentence's 'now' as
    this one's, and a vehicle gold reply failed its own claims check."""
    vocabulary = claim_vocabulary(toolgym.load_domain("vehicle"))
    said = "Brake pressed and the engine is running; the doors were already locked. Charging now: 14% so far, limit 90%."
    assert [(c.verbs, c.strong) for c in read_claims(said, vocabulary) if "lock" in c.verbs] == [(("lock",), False)]
    # in its own sentence, "now" still makes the state a claim of an act
    assert [c.strong for c in read_claims("The doors were locked just now.", vocabulary) if "lock" in c.verbs] == [True]


def test_a_quotation_that_closes_on_a_stop_ends_the_sentence_before_a_capital():
    """'Carl Miller has your email "Thanks!" It's saved in your sent items.' read as one sentence, and
    the email's arrival made a claim of the save; a stop inside a quotation still ends nothing else."""
    from toolgym.envs.claim_tokens import tokenize

    said = tokenize('Carl Miller has your email "Thanks!" It\'s saved in your sent items.', frozenset())
    at = said.words.index("saved")
    assert said.words[said.sentence[at]] == "it"  # "It's saved ..." is a sentence of its own
    inside = tokenize('I posted "Done. All good" in #general for you.', frozenset())
    assert inside.sentence[inside.words.index("general")] == 0  # the quotation's stop ends nothing of the agent's
    # a reply of that shape passes the check (the chat whose gold failed was a workplace multi_turn)
    task, messages = _gold("workplace", "single", n=80, calls="send_email")
    sent = next(c.arguments for c in task.gold_calls() if c.name == "send_email")
    reply = f'Your colleague has your email "{sent["subject"]}!" It\'s saved in your sent items.'
    assert _judged(task, _with_final(messages, reply)).passed, reply
