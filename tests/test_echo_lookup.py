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
