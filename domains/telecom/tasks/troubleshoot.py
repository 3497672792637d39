"""Troubleshooting parts: one or more faults set into the world, and the way back to a working phone.

The gold plan reads the line, checks for an outage where the customer is (at home), has the
customer read what shows each phone fault (the network settings, the status bar, the APN),
clears each fault in the policy's order only once it has been seen, restarts the phone if a
setting needs it, and ends with a speed test that passes (unless only a technician or the end
of an outage can help).
"""

from __future__ import annotations

from toolgym.envs import (
    Fact,
    Forbidden,
    GenContext,
    Piece,
    Step,
    Utterance,
    call,
    money,
    shown_as,
    structures,
)

from ..catalogue import DESTINATIONS, REFILLS
from .faults import (
    ABROAD,
    DIAGNOSE,
    FAULTS,
    FIXABLE_AT_HOME,
    PHONE,
    PHONE_ORDER,
    RESTART,
    SETTINGS_CHECK,
    TERMINAL,
    TEST,
    line_edit,
    phone_edit,
)
from .index import Index, Subscriber
from .parts import agent, gb, user

LOCATION_FACT = "location"
UNPLACED_SHARE = 0.4  # of problems at home, reported without saying where the customer is
SPEED_TEST_PASSED = "passed"  # the outcome every fixed connection reports (see `troubleshoot_done`)
RESTART_NEEDED = "restart is needed"  # what the customer reports after resetting the APN
DEVICE_RESTART_NEEDED = shown_as(restart_needed_to_apply=True)  # the phone's own reading of it
ALWAYS_FORBIDDEN = (
    Forbidden(reason="troubleshooting never changes the plan without the customer asking", tool="change_plan"),
    Forbidden(reason="nothing here calls for a refund", tool="refund_payment"),
    Forbidden(reason="the customer did not ask to suspend a line", tool="suspend_line"),
)
FIXABLE_FORBIDDEN = (Forbidden(reason="a fixable problem is not a case for a technician", tool="transfer_to_technician"),)


def choose_faults(ctx: GenContext, index: Index) -> tuple[Subscriber, list[str]]:
    """A subscriber and the faults to set: one terminal fault, or one to three fixable ones."""
    draw = ctx.rng.random()
    if draw < 0.18:
        return ctx.pick(index.healthy), [ctx.pick(TERMINAL)]
    count = ctx.rng.choices((1, 2, 3), (50, 35, 15))[0]
    if draw < 0.42:  # abroad: at least one roaming fault, on a plan that carries roaming
        sub = ctx.pick(index.roaming_plans)
        roaming = ctx.rng.sample(ABROAD, ctx.rng.choice((1, 1, 2)))
        others = [f for f in FIXABLE_AT_HOME if FAULTS[f].applies(sub)]
        return sub, roaming + ctx.rng.sample(others, max(0, count - len(roaming)))
    sub = ctx.pick(index.healthy)
    pool = [f for f in FIXABLE_AT_HOME if FAULTS[f].applies(sub)]
    return sub, ctx.rng.sample(pool, count)


def troubleshoot(ctx: GenContext, sub: Subscriber, fault_names: list[str]) -> Piece:
    fault_names = sorted(fault_names, key=_policy_rank)
    faults = [FAULTS[n] for n in fault_names]
    abroad = any(f.abroad for f in faults)
    terminal = any(f.terminal for f in faults)
    fixes = [f.build(ctx, sub) for f in faults]
    part = Piece(subject=sub.customer_id, request="", goal="", reply=Utterance(intent="troubleshoot_done"))

    staged: list[tuple[int, int, Step]] = [(DIAGNOSE, -2, agent(call("get_line_details", line_id=sub.line_id)))]
    if abroad:
        country, city = ctx.pick(DESTINATIONS)
        place = f"{city}, {country}"
        part.setup += _trip_edits(sub, country, city, fault_names)
    else:
        place = sub.region
        staged.append((DIAGNOSE, -1, agent(call("check_outages", region=sub.region), needs=(LOCATION_FACT,))))
    if any(fix.settings_check for fix in fixes):  # one look at every switch shows each switch fault
        staged.append((PHONE, -1, user(ctx, SETTINGS_CHECK, "do_check_network_settings")))
    for order, fix in enumerate(fixes):
        staged += [(stage, order, step) for stage, step in fix.steps]
        part.setup += fix.setup
    if any(fix.restart for fix in fixes):
        staged.append((RESTART, 0, user(ctx, "restart_device", "do_restart", evidence=(RESTART_NEEDED, DEVICE_RESTART_NEEDED))))
    if not terminal:
        staged.append((TEST, 0, user(ctx, "run_speed_test", "do_speed_test")))
    part.steps = [step for _, _, step in sorted(staged, key=lambda s: (s[0], s[1]))]

    part.facts = [_location_fact(place)] + [f for fix in fixes for f in fix.facts]
    part.withheld = [k for fix in fixes for k in fix.withheld]
    part.outputs = [o for fix in fixes for o in fix.outputs] + ([] if terminal else [SPEED_TEST_PASSED])
    part.forbidden = [r for fix in fixes for r in fix.forbidden] + list(ALWAYS_FORBIDDEN)
    if not terminal:
        part.forbidden += FIXABLE_FORBIDDEN
    symptom = max(f.symptom for f in faults)
    part.request = ctx.say(f"symptom_{'abroad' if abroad else 'home'}_{symptom}", place=place)
    if not abroad and ctx.rng.random() < UNPLACED_SHARE:  # the outage check waits for where they are
        part.request = ctx.say(f"symptom_home_{symptom}_unplaced")
        part.withheld = [LOCATION_FACT, *part.withheld]
    part.goal = ctx.say("goal_troubleshoot", place=place)
    intent = "troubleshoot_done" if not terminal else f"troubleshoot_{fault_names[0]}"
    part.reply = Utterance(intent=intent, vars={"done": [_clause(d) for fix in fixes for d in fix.done]})
    return refill_picked(part)


def refill_picked(part: Piece) -> Piece:
    """The refill of a used-up allowance is the customer's pick among the sizes read (the policy: offer
    one and let the customer choose its size); the gold says why, names each and asks which."""
    at = next((i for i, s in enumerate(part.steps) if any(c.name == "add_data_refill" for c in s.calls)), None)
    if at is None:
        return part
    gigabytes = part.steps[at].calls[0].arguments["gigabytes"]
    return structures.ask_which(
        part, label="refill", what="data refill sizes", options=[gb(r.gigabytes) for r in REFILLS],
        described=[f"{gb(r.gigabytes)} for {money(r.price)}" for r in REFILLS], answer=f"the {gb(gigabytes)} one", step=at,
        question="offer_refill",  # the customer reported a symptom, not a wish for a refill: it is offered
    )  # fmt: skip


def _clause(said: str) -> str:
    """A rendered `done_*` line as a clause inside a sentence: its first word back in lower case
    (rendering capitalises a sentence start), 'I' and ids kept."""
    first, _, rest = said.partition(" ")
    if first[:1].isupper() and first[1:] == first[1:].lower() and not any(c.isdigit() for c in first) and first != "I":
        first = first.lower()
    return f"{first} {rest}".strip()


def _policy_rank(name: str) -> int:
    """Account faults first (their stages order them), then phone faults in the policy's order."""
    return PHONE_ORDER.index(name) if name in PHONE_ORDER else -1


def _trip_edits(sub: Subscriber, country: str, city: str, fault_names: list[str]):
    """The customer is abroad; roaming is on everywhere except where a fault turns it off."""
    return [
        phone_edit(
            sub,
            location_country=country,
            location_region=city,
            signal_bars=3,
            roaming_switch="roaming_switch_off" not in fault_names,
        ),
        line_edit(sub, roaming_enabled="roaming_off_account" not in fault_names),
    ]


def _location_fact(place: str) -> Fact:
    return Fact(key=LOCATION_FACT, value=place, label="current location", keywords=["location", "where are you"])
