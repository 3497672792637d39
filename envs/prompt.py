"""System prompt variants: the same policy, worded around it in many ways.

A model trained on one system prompt learns that prompt. Each task draws a variant (by its seed,
from `PROMPT_VARIANTS`): the brand the agent works for (the domain's `policy_values["brands"]`),
how the date and time are written (`today_text`, `now_text`, always the world's own clock), the
order of the policy's `## ` sections, and a tone line (`system_tone` in the phrasebook). The
rules' text is never changed: every variant holds every section, word for word.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

PROMPT_VARIANTS = 512  # variants per world: task seeds fold onto these, so the prompt cache stays small
_SECTION = re.compile(r"^## ", re.MULTILINE)
_DATE_FORMATS = ("{d:%A}, {d:%B} {d.day}, {d:%Y}", "{d:%Y-%m-%d}", "{d.day} {d:%B} {d:%Y}", "{d:%B} {d.day}, {d:%Y}", "{d:%a} {d:%d} {d:%b} {d:%Y}")
_TIME_FORMATS = ("{t:%H:%M}", "{h}:{t:%M} {t:%p}")


@dataclass(frozen=True)
class PromptVariant:
    brand: str | None
    date_format: int
    time_format: int
    tone: int
    order_seed: int

    def names(self, now: dt.datetime) -> dict[str, Any]:
        """The names a policy template may use for this variant (besides `now`, `today`, `domain`)."""
        hour = now.hour % 12 or 12
        return {
            "brand": self.brand,
            "today_text": _DATE_FORMATS[self.date_format].format(d=now.date()),
            "now_text": _TIME_FORMATS[self.time_format].format(t=now, h=hour),
        }


def draw_variant(variant: int, brands: list[str] | None, tones: int) -> PromptVariant:
    """The variant numbered `variant` (folded onto PROMPT_VARIANTS)."""
    rng = random.Random(variant % PROMPT_VARIANTS)
    return PromptVariant(
        brand=rng.choice(brands) if brands else None,
        date_format=rng.randrange(len(_DATE_FORMATS)),
        time_format=rng.randrange(len(_TIME_FORMATS)),
        tone=rng.randrange(max(1, tones)),
        order_seed=rng.randrange(1 << 30),
    )


def reorder_sections(text: str, seed: int) -> str:
    """The policy with its `## ` sections in a seeded order; the text before the first one stays first."""
    starts = [m.start() for m in _SECTION.finditer(text)]
    if len(starts) < 2:
        return text
    head = text[: starts[0]]
    sections = [text[a:b].rstrip("\n") + "\n" for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    random.Random(seed).shuffle(sections)
    return head + "\n".join(sections)


def with_tone(text: str, tone: str) -> str:
    """The tone line after the policy's opening paragraph(s), before its first section."""
    if not tone:
        return text
    first = _SECTION.search(text)
    if first is None:
        return text.rstrip("\n") + "\n\n" + tone + "\n"
    return text[: first.start()].rstrip("\n") + "\n\n" + tone + "\n\n" + text[first.start() :]
