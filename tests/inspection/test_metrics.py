"""The language figures on hand-made rows: each one moves when the corpus does."""

from __future__ import annotations

import random

import pytest

from toolgym.generators.inspection import metrics
from toolgym.generators.inspection.headline import headline
from toolgym.generators.inspection.neardup import near_duplicate_flags
from toolgym.generators.inspection.text import normalize, shingles, split_sentences


def chat(*turns: str | dict, domain: str = "retail", kind: str = "single", reasoning: str | None = None) -> dict:
    """A row from alternating user / assistant texts (dicts are taken as messages)."""
    messages: list[dict] = [{"role": "system", "content": "Policy. Be kind."}]
    for index, turn in enumerate(turns):
        if isinstance(turn, dict):
            messages.append(turn)
            continue
        role = "user" if index % 2 == 0 else "assistant"
        message = {"role": role, "content": turn}
        if role == "assistant" and reasoning:
            message["reasoning_content"] = reasoning
        messages.append(message)
    return {"domain": domain, "kind": kind, "messages": messages, "tools": [], "user_tools": []}


def test_sentences_split_after_end_marks_and_lines():
    assert split_sentences("Done. Shall I go ahead (yes/no)? Great!\nNext line") == [
        "Done.", "Shall I go ahead (yes/no)?", "Great!", "Next line"
    ]
    assert split_sentences("It costs $12.50 today.") == ["It costs $12.50 today."]  # no split inside a number
    assert split_sentences("   ") == []


def test_top_sentences_share_and_largest_sentence():
    rows = [chat("hi", "Sure. Order W1 is shipped.") for _ in range(3)] + [chat("hi", "Sure. It left today.")]
    figures = metrics.top_sentences(rows, n=1)
    assert figures.total == 8
    assert figures.top == [("Sure.", 4)]
    assert figures.top_share == pytest.approx(0.5)
    assert figures.max_share == pytest.approx(0.5)
    two = metrics.top_sentences(rows, n=2)
    assert two.top_share == pytest.approx(7 / 8)


def test_assistant_turns_without_words_and_system_text_are_not_sentences():
    rows = [chat("hi", {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f"}}]}, "ok", "Done.")]
    assert metrics.top_sentences(rows).total == 1


def test_repeated_turn_share_counts_turns_repeated_at_least_n_times():
    rows = [chat("hi", "Tell me when you're done.") for _ in range(10)] + [chat("hi", f"Order {i} is here.") for i in range(10)]
    assert metrics.repeated_turn_share(rows) == (10, 20)
    assert metrics.repeated_turn_share(rows[1:]) == (0, 19)  # nine repeats are under the bar


def test_normalize_masks_ids_numbers_and_punctuation():
    assert normalize("Hi! My order #W2847 for $12.50, email a.b@x.org?") == "hi my order # for # email #"
    assert normalize("credit_card_7009466 please") == "# please"
    assert normalize("Cancel   it, NOW.") == "cancel it now"


def test_openings_count_distinct_after_normalizing_per_domain_and_kind():
    rows = [chat(f"Where is order #W{i}?") for i in range(5)]  # one opening once ids are masked
    rows += [chat("Cancel my order.", kind="multi_step"), chat("Please change my address.", kind="multi_step")]
    found = metrics.openings(rows)
    assert found[("retail", "single")].rows == 5 and found[("retail", "single")].distinct == 1
    assert found[("retail", "single")].distinct_share == pytest.approx(0.2)
    assert found[("retail", "multi_step")].distinct == 2


def test_near_duplicates_found_at_the_bar_and_not_below():
    base = "i would like to know the status of my most recent order and when it will arrive at my home"
    one_word_changed = base.replace("home", "house")  # 16 of 18 five-grams shared: Jaccard 0.8
    unrelated = "can you tell me which payment methods are on my account right now please thanks"
    flags = near_duplicate_flags([base, one_word_changed, unrelated])
    assert flags == [True, True, False]
    a, b = shingles(normalize(base)), shingles(normalize(one_word_changed))
    assert len(a & b) / len(a | b) >= 0.8
    two_changed = base.replace("status", "state").replace("home", "house")  # Jaccard well under 0.8
    assert near_duplicate_flags([base, two_changed]) == [False, False]


def test_near_duplicates_scale_past_quadratic_sizes():
    texts = [f"please look up order number {i} placed by customer {i * 7} living in city {i % 13}" for i in range(3000)]
    vocabulary = [f"{a}{b}" for a in "bcdfghklmnprstvz" for b in ("ao", "ei", "ou", "ua", "ie")]
    draw = random.Random(0)
    texts += [" ".join(draw.sample(vocabulary, 12)) for _ in range(3000)]
    flags = near_duplicate_flags(texts)
    assert all(flags[:3000])  # digits are masked: one template, all duplicates
    assert not any(flags[3000:])  # random word orders share no five-gram


def test_openings_signed_in_chunks_find_partners_across_chunks():
    base = "i would like to know the status of my most recent order and when it will arrive at my home"
    near = base.replace("home", "house")  # Jaccard 0.8 with base
    draw = random.Random(1)
    vocabulary = [f"{a}{b}" for a in "bcdfghklmnprstvz" for b in ("ao", "ei", "ou", "ua", "ie")]
    filler = [" ".join(draw.sample(vocabulary, 12)) for _ in range(3 * metrics.OpeningTally.CHUNK)]
    # the partners of each pair fall in different chunks: one at the start, one near the end
    texts = [base, "Where is order #W123?"] + filler + [near, "Where is order #W987?"]
    tally = metrics.OpeningTally()
    for text in texts:
        tally.add(text)
    assert tally._near is not None and len(tally._near._signatures) > 1, "signed over several chunks"
    figures = tally.figures()
    assert (figures.rows, figures.near_duplicates) == (len(texts), 4)  # the two pairs, nothing of the filler
    assert figures.distinct == len(texts) - 1  # the order numbers are masked: those two are one text
    assert near_duplicate_flags(texts) == [True, True] + [False] * len(filler) + [True, True]


def test_reasoning_traces_distinct_share():
    rows = [chat("hi", "Done.", reasoning="The next step is get_order.") for _ in range(3)]
    rows.append(chat("hi", "Done.", reasoning="Order W1 shows 'pending', so cancel_order applies."))
    assert metrics.reasoning_traces(rows) == (2, 4)
    assert metrics.reasoning_traces([chat("hi", "Done.")]) == (0, 0)


def test_shapes_and_tool_coverage():
    call = {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": {"order_id": "W1"}}}
    row = chat("hi", {"role": "assistant", "content": None, "tool_calls": [call, {**call, "id": "c2"}]},
               {"role": "tool", "content": "{}", "tool_call_id": "c1"}, {"role": "user", "content": None,
               "user_tool_calls": [{"name": "toggle_airplane_mode", "arguments": {}}]})
    row["tools"] = [{"type": "function", "function": {"name": "get_order"}}, {"type": "function", "function": {"name": "cancel_order"}}]
    row["user_tools"] = [{"type": "function", "function": {"name": "toggle_airplane_mode"}}]
    shape = metrics.shapes([row])[("retail", "single")]
    assert (shape.rows, shape.calls, shape.user_calls) == (1, 2, 1)
    assert shape.calls_histogram == {2: 1}
    assert metrics.tool_coverage([row]) == {"retail": (["get_order", "toggle_airplane_mode"], ["cancel_order"])}


def test_headline_carries_the_card_figures():
    rows = [chat("Where is my order?", "Shall I go ahead (yes/no)?") for _ in range(12)]
    figures = headline(rows)
    assert figures["top20_sentence_share"] == 1.0 and figures["max_sentence_share"] == 1.0
    assert figures["repeated_turn_share"] == 1.0
    assert figures["openings"]["retail/single"] == {"rows": 12, "distinct": 1, "near_duplicate_rate": 1.0}
    assert figures["reasoning_distinct_share"] is None
