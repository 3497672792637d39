"""no_tool/missing_info: the customer wants something done but cannot give the one value it needs.

A request names what it is about (a refill size, a plan, an amount, a trip, someone they call
for), with those values drawn from the catalogue and the world, but never the phone number of
the line, or the region for an outage question. The agent must ask for it and call nothing.
"""

from __future__ import annotations

from typing import Any

from toolgym.envs import GenContext, Task, pieces

from ..catalogue import DESTINATIONS, PLANS, REFILLS
from .index import index_of
from .parts import assemble
from .people import CONTACTS, RELATIVES

# Requests that need the line's phone number or the region, for the customer's own line or for
# someone else's (`_for`: the missing fact is that person's, and the agent asks for it as theirs).
NEEDS_NUMBER = ("missing_number_refill_for", "missing_number_refill_own", "missing_number_pay_for",
                "missing_number_pay_own", "missing_number_roaming_for", "missing_number_roaming_own",
                "missing_number_plan_for", "missing_number_plan_own", "missing_number_suspend_for",
                "missing_number_suspend_own", "missing_number_usage_for", "missing_number_resume_for",
                "missing_number_bill_for")  # fmt: skip
NEEDS_REGION = ("missing_region_outage", "missing_region_outage_here", "missing_region_outage_for")


def _slots(ctx: GenContext) -> dict[str, Any]:
    """Every value a phrasing may name; each phrasing uses a few."""
    who, their = ctx.pick(RELATIVES)
    country, city = ctx.pick(DESTINATIONS)
    phrases = ctx.domain.phrasebook
    return {
        "who": who,
        "their": their,
        "contact": ctx.pick(CONTACTS),
        "gb": ctx.pick(REFILLS).gigabytes,
        "plan": ctx.pick(PLANS).name,
        "amount": ctx.pick(index_of(ctx.world).subscribers).open_bill.amount,  # a bill as the world has them
        "country": country,
        "city": city,
        "where": ctx.pick(phrases.variants("slot_lost_where")),
        "service": ctx.pick(phrases.variants("slot_lost_service")),
        "since": ctx.pick(phrases.variants("slot_since")),
        "trip": ctx.pick(phrases.variants("slot_trip")),
    }


def missing_info(ctx: GenContext) -> Task:
    """The customer wants something done but cannot say which line (or where they are).

    The agent asks for the fact of the person the request is about: "your son's phone number"
    when the customer calls about their son's line, "your phone number" for their own.
    """
    if ctx.rng.random() < 0.8:
        intent, label = ctx.pick(NEEDS_NUMBER), "phone number"
    else:
        intent, label = ctx.pick(NEEDS_REGION), "service region"
    slots = _slots(ctx)
    whose = ""  # the customer's own
    if intent.endswith("_for"):
        whose = f"{slots['contact'] if intent.startswith('missing_region') else slots['who']}'s"
    asked = f"{whose} {label}".strip()  # what the agent asks for, after "your"
    part = pieces.missing_info(ctx.say(intent, **slots), ctx.say("goal_missing_info"), [asked])
    assert part.no_tool is not None
    # the verifier looks for the bare label after whose it is ("your son's" + "phone number")
    part.no_tool = part.no_tool.model_copy(update={"missing": [label], "about": f"your {whose}".strip()})
    return assemble(ctx, None, [part])
