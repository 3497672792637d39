"""Phrasings are checked when a domain loads and when a task is finalized."""

from __future__ import annotations

import re

import pytest

from toolgym.envs.phrasebook import CLOSING_PARTS, ENGINE_UTTERANCES, Phrasebook
from toolgym.errors import DomainError, UnknownNameError


def _book(tmp_path, text: str) -> Phrasebook:
    path = tmp_path / "utterances.yaml"
    path.write_text(text)
    return Phrasebook(ENGINE_UTTERANCES, path)


def test_a_syntax_error_fails_at_load_naming_intent_and_variant(tmp_path):
    with pytest.raises(DomainError, match=r"utterance 'done' \(variant 1: .*\) is not valid Jinja2"):
        _book(tmp_path, 'done:\n  - "ok {{ x }}"\n  - "broken {{ x "\n')


def test_capitalize_is_refused_for_lowering_the_rest_of_the_text(tmp_path):
    # Jinja's capitalize made "wi-fi calling is now on so you can call over wi-fi" of a telecom reply
    with pytest.raises(DomainError, match=r"utterance 'done' \(variant 0: .*\) uses Jinja's `capitalize`.*use `capfirst`"):
        _book(tmp_path, 'done:\n  - "Thanks. {{ done | join_words | capitalize }}."\n')
    book = _book(tmp_path, 'done:\n  - "Thanks. {{ done | join_words | capfirst }}."\n')
    said = book.say("done", 0, done=["there is an outage", "Wi-Fi calling is on"])
    assert said == "Thanks. There is an outage and Wi-Fi calling is on."


def test_a_composed_turn_never_says_a_word_again_when_its_part_has_another_fragment(tmp_path):
    book = _book(tmp_path, 'bye:\n  thanks: ["Happy to help.", "My pleasure."]\n'
                           '  offer: ["If you need more help, just ask.", "Come back anytime."]\n')
    said = {book.say("bye", seed) for seed in range(200)}
    assert said == {"Happy to help. Come back anytime.", "My pleasure. Come back anytime.",
                    "My pleasure. If you need more help, just ask."}
    # a part with no other fragment keeps its word: the turn is said, not refused
    book = _book(tmp_path, 'bye:\n  thanks: ["Happy to help."]\n  offer: ["Ask for help anytime."]\n')
    assert book.say("bye", 3) == "Happy to help. Ask for help anytime."


def test_a_composed_turn_says_now_once(tmp_path):
    """'There's nothing more for you to do for now. Goodbye for now!': a word of three letters, but
    one a closing says twice where it can."""
    book = _book(tmp_path, 'bye:\n  rest: ["Nothing more is needed for now."]\n  wish: ["Bye for now!", "Take care!"]\n')
    assert {book.say("bye", seed) for seed in range(100)} == {"Nothing more is needed for now. Take care!"}


def test_an_engine_intent_may_use_only_what_the_engine_passes(tmp_path):
    with pytest.raises(DomainError, match=r"'confirm' .* uses \['actoin'\], which the engine does not pass; it passes \['action', 'apologised', 'details'\]"):
        _book(tmp_path, 'confirm:\n  - "Shall I {{ actoin }} (yes/no)?"\n')


def test_every_variant_must_render_with_the_callers_variables(tmp_path):
    book = _book(tmp_path, 'refunded:\n  - "Refunded {{ amount }}."\n  - "Refunded {{ amount }} to {{ method }}."\n')
    book.check_variables("refunded", {"amount", "method"})
    with pytest.raises(DomainError, match=r"'refunded' \(variant 1: .*\) needs \['method'\], but its caller passes only \['amount'\]"):
        book.check_variables("refunded", {"amount"})


def test_question_marks_in_the_text_not_in_variables(tmp_path):
    book = _book(tmp_path, 'report:\n  - "Your total is {{ total }}."\nasker:\n  - "Anything else?"\n')
    assert not book.asks("report") and book.asks("asker")


def test_a_domain_can_drop_engine_variants(tmp_path):
    book = _book(tmp_path, 'exclude_engine:\n  irrelevant_request:\n    - "Can you renew my library books?"\n')
    assert "Can you renew my library books?" not in book.pooled("irrelevant_request")
    assert len(book.pooled("irrelevant_request")) > 10
    gone = _book(tmp_path, "exclude_engine:\n  reason_reply: all\n")
    with pytest.raises(DomainError, match="no variants left"):
        gone.variants("reason_reply")
    with pytest.raises(DomainError, match="names variants the engine does not have"):
        _book(tmp_path, 'exclude_engine:\n  irrelevant_request: ["Not there"]\n')
    with pytest.raises(UnknownNameError):
        _book(tmp_path, "exclude_engine:\n  irelevant_request: all\n")


def test_a_domain_drops_a_shared_list_of_engine_variants_and_more(tmp_path):
    """A YAML alias of variants several intents drop, inside a list that drops one more."""
    book = _book(tmp_path, 'exclude_engine:\n  closer_answered: &offers [", come back to us.", "The team is"]\n'
                           '  closer_done: [*offers, "{% if ours is defined and ours %} done on our side.{% else %} done.{% endif %}"]\n')
    done = book.variants("closer_done")
    for seed in range(300):
        said = book.say("closer_done", seed, thanked=True, ours=True)
        assert "come back to us" not in said and "The team is" not in said and "done on our side" not in said, said
    assert done and "come back to us" not in " ".join(book.variants("closer_answered"))


def test_finalize_rejects_a_reply_missing_a_variable_or_asking(toy_domain):
    import random

    from toolgym.envs import GenContext
    from toolgym.envs.generation import finalize
    from toolgym.errors import GeneratorBug

    world = toy_domain.new_world(seed=0, size="small")
    ctx = GenContext(toy_domain, world, random.Random(0), 0, "single", 0, "small")
    task = toy_domain.generators["single"](ctx)
    finalize(toy_domain, task)
    broken = task.model_copy(update={"replies": [task.replies[0].model_copy(update={"vars": {}})]})
    with pytest.raises(GeneratorBug, match=r"reply 0: utterance 'closed' .* needs \['account_id'\]"):
        finalize(toy_domain, broken)
    asking = task.model_copy(update={"replies": [task.replies[0].model_copy(update={"intent": "ask_missing", "vars": {"labels": ["x"]}})]})
    with pytest.raises(GeneratorBug, match="question mark"):
        finalize(toy_domain, asking)
    world.close()


def test_asides_are_the_framing_sentences_written_whole_and_no_request():
    import toolgym
    from toolgym.envs.user_turns import sentence_key

    telecom = toolgym.load_domain("telecom").phrasebook
    assert sentence_key("Please go slowly with me.") in telecom.asides  # opening@elderly
    assert sentence_key("Right, so, bear with me.") in telecom.asides  # opening@chatty
    assert telecom.asides < telecom.fillers
    requests_whole = telecom.fillers - telecom.asides
    assert any("roaming" in key for key in requests_whole)  # a request written whole is no aside
    retail = toolgym.load_domain("retail").phrasebook  # frames its turns with `opener` and `aside`
    assert retail.asides and retail.asides < retail.fillers
    research = toolgym.load_domain("research").phrasebook  # an `aside` part of its request intent
    assert sentence_key("It's for a report.") in research.asides
    assert sentence_key("Please check the web for me.") in research.asides


def test_an_intent_given_twice_fails_at_load_naming_it(tmp_path):
    # YAML keeps the last of two equal keys without a word: the first list's wordings would be lost
    with pytest.raises(DomainError, match=r"utterances.yaml: .*'seen' is given twice"):
        _book(tmp_path, 'report:\n  seen: ["A."]\n  facts: ["B."]\n  seen: ["C."]\n')


def test_a_reply_said_unclosed_keeps_its_words_and_drops_only_its_closing_line(tmp_path):
    book = _book(tmp_path, 'report:\n  ack: ["", "Sure."]\n  fact: ["Your total is {{ total }}.", "It comes to {{ total }}."]\n'
                           '  close: ["", "Happy to help with anything else.", "I hope that helps."]\n')
    assert book.closing_lines("report") == ["Happy to help with anything else.", "I hope that helps."]
    closed = 0
    for seed in range(60):
        whole, unclosed = book.say("report", seed, total="$5.00"), book.say_without("report", seed, CLOSING_PARTS, total="$5.00")
        ending = [line for line in book.closing_lines("report") if whole.endswith(line)]
        closed += bool(ending)
        assert unclosed == (whole[: -len(ending[0])].rstrip() if ending else whole), (whole, unclosed)
    assert closed >= 20


@pytest.mark.parametrize("name", ["banking", "workplace"])
def test_a_confirmation_never_says_set_to_set(name):
    """"I'm set to set the daily limit of the card ending in 7230 to $1,650.00.": an action that
    begins with "set" is announced as ready, never as "set to"."""
    import toolgym

    book = toolgym.load_domain(name).phrasebook
    intents = [i for i in ("confirm", "confirm@frustrated", "confirm@terse", "confirm@elderly", "confirm@formal")
               if book.has(i)]
    said = {book.say(intent, seed, action="set the daily limit of the card ending in 7230 to $1,650.00")
            for intent in intents for seed in range(400)}
    assert not [text for text in said if "set to set" in text]
    assert [text for text in said if "ready to set" in text]


def test_a_domain_leaves_out_a_voice_its_assistant_lacks(tmp_path):
    """`exclude_voices: [company]` drops the engine's company voice ("come back to us", "the team is
    here") from every intent that has it; a voice the engine does not know is named with those it does."""
    book = _book(tmp_path, "exclude_voices: [company]\n")
    said = [book.say(intent, seed, thanked=seed % 2 == 0) for intent in ("closer_done", "closer_answered", "farewell")
            for seed in range(300)]
    assert not [s for s in said if re.search(r"\bus\b|\bour side\b|The team is|We're", s)]
    assert [s for s in said if "I'm" in s]
    with pytest.raises(UnknownNameError, match="correspondence"):
        _book(tmp_path, "exclude_voices: [companny]\n")
