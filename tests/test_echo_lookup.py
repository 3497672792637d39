"""no_echo looks a reply's word runs up in the joined words of a source: the same answer as cutting both into runs."""

from __future__ import annotations

import random

from toolgym.verifiers.reply_acts import _Source, echoes


def test_a_run_found_in_the_joined_words_is_a_run_the_source_has():
    draw = random.Random(1)
    vocabulary = [f"w{i}" for i in range(30)]
    for _ in range(5000):
        source = [draw.choice(vocabulary) for _ in range(draw.randrange(0, 60))]
        reply = [draw.choice(vocabulary) for _ in range(draw.randrange(0, 12))]
        size = draw.randrange(1, 6)
        text = _Source("system", " ".join(source))
        assert text.words == source
        assert text.copied_into(reply, size) == echoes(reply, source, size), (source, reply, size)


def test_a_value_the_reply_must_state_is_no_echo_of_the_user_who_gave_it():
    """'From now on, orders go to 6508 Oak Street, ... by default.' after 'It's 6508 Oak Street, ...'
    failed the gold's own verifier (and a job): the address is what the reply has to state."""
    from types import SimpleNamespace

    from toolgym.verifiers.reply_acts import no_echo

    address = "6508 Oak Street, Unit 293, Ann Arbor, MI 48104"
    reply = {"role": "assistant", "content": f"From now on, orders go to {address} by default."}
    messages = [{"role": "user", "content": f"It's {address}."}, reply]
    chat = SimpleNamespace(messages=messages, agent_messages=[reply])
    assert no_echo(SimpleNamespace(required_outputs=[address]), chat).value == 1.0
    assert no_echo(SimpleNamespace(required_outputs=[]), chat).value == 0.0  # read as the user's words, it is an echo
    # the user's own words are still not to be said back around the value
    parrot = {"role": "assistant", "content": f"My new address is {address}, please update my profile with it today."}
    said = [{"role": "user", "content": f"My new address is {address}, please update my profile with it today."}, parrot]
    assert no_echo(SimpleNamespace(required_outputs=[address]), SimpleNamespace(messages=said, agent_messages=[parrot])).value == 0.0
