"""Phrasings rendered without Jinja give Jinja's text, for every variant of every domain."""

from __future__ import annotations

import jinja2
import jinja2.meta
import pytest

from tests.conftest import builtin_domains
from toolgym.envs.phrasebook import _JINJA
from toolgym.envs.registry import load_domain
from toolgym.envs.snippets import Snippet

# One value per kind of slot a phrasing may hold: numbers for money and counts, lists for joins.
_VALUES = {"labels": ["order id", "email"], "tools": ["find_order"], "names": ["Ann", "Bo"], "facts": ["a", "b"],
           "pairs": ["x: 1"], "done": ["cancelled"], "bags": 2, "count": 3, "minutes": 15, "parallel": True}


def _value(name: str):
    return _VALUES.get(name, 12.5 if name in {"amount", "price", "total", "limit", "balance", "fee"} else f"<{name}>")


def _outcome(render, *args):
    """The text rendered, or the type of error raised."""
    try:
        return render(*args)
    except Exception as exc:
        return type(exc)


def test_the_fast_path_covers_only_slots_and_text():
    assert Snippet("Thanks!", _JINJA)._pieces == ["Thanks!"]
    assert Snippet("You owe {{ amount | money }}.", _JINJA)._pieces is not None
    for source in ("{% if x %}a{% endif %}", "{{ x | join_words('or') }}", "{{ true }}", "{{- x }}", "{# note #}",
                   "{{ x | sum }}", "a\r\nb {{ x }}"):
        assert Snippet(source, _JINJA)._pieces is None, source


def test_a_missing_value_raises_as_jinja_does():
    with pytest.raises(jinja2.UndefinedError, match="'order_id' is undefined"):
        Snippet("Order {{ order_id }}.", _JINJA).render({}, _JINJA)


@pytest.mark.parametrize("name", builtin_domains())
def test_every_variant_renders_as_jinja_renders_it(name):
    book = load_domain(name).phrasebook
    covered = 0
    for intent in book.intents():
        for source in book.pooled(intent):
            compiled = Snippet(source, _JINJA)
            if compiled._pieces is None:
                continue
            covered += 1
            for values in ({v: _value(v) for v in compiled.variables}, dict.fromkeys(compiled.variables, 7)):
                fast = _outcome(compiled.render, values, _JINJA)
                assert fast == _outcome(_JINJA.from_string(source).render, values), source
            # Jinja leaves its globals (`range`) out; a phrasing renders without them, so they count here
            read_by_jinja = jinja2.meta.find_undeclared_variables(_JINJA.parse(source))
            assert compiled.variables - set(_JINJA.globals) == read_by_jinja
    assert covered > 100  # the fast path is in use
