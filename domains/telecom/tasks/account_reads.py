"""Questions about the customer's own account that one read answers once they are identified:
data left on the line, the open bill, the last payment, the methods on file, the handset.

Each piece is one read step (two for the handset: its id is on the line), so that two of them
asked in one message are answered by one parallel step (`structures.together`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolgym.envs import GenContext, Piece, Utterance, call, money

from .index import Subscriber
from .parts import agent, gb


def _read(ctx: GenContext, sub: Subscriber, topic: str, step_calls: list, answer: dict, outputs: list[str]) -> Piece:
    """A piece from the phrasings `ask_<topic>`, `goal_<topic>`, `answer_<topic>`: reads about `sub`'s account."""
    return Piece(
        subject=sub.customer_id,
        request=ctx.say(f"ask_{topic}"),
        goal=ctx.say(f"goal_{topic}"),
        steps=[agent(*step_calls)],
        reply=Utterance(intent=f"answer_{topic}", vars=answer),
        outputs=outputs,
        keys=frozenset({f"read:{topic}"}),
    )


def data_left(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """How much data is left this cycle (an Unlimited line has no figure to state)."""
    if sub.plan.unlimited:
        return None
    allowance = round(sub.plan.data_gb + sub.refill_gb, 2)
    left = round(max(allowance - sub.data_used_gb, 0.0), 2)
    answer = {"used": gb(sub.data_used_gb), "left": gb(left), "allowance": gb(allowance)}
    return _read(ctx, sub, "data_left", [call("get_line_details", line_id=sub.line_id)], answer, [gb(left)])


def open_bill(ctx: GenContext, sub: Subscriber) -> Piece | None:
    bill = sub.open_bill
    answer = {"amount": bill.amount, "bill_id": bill.bill_id, "due": f"{bill.due_date:%B %d}"}
    return _read(ctx, sub, "open_bill", [call("list_bills", account_id=sub.account_id)], answer, [money(bill.amount)])


def last_payment(ctx: GenContext, sub: Subscriber) -> Piece | None:
    bill = sub.last_paid_bill
    if bill.paid_at is None:
        return None
    answer = {"amount": bill.amount, "day": f"{bill.paid_at:%B %d}"}
    return _read(ctx, sub, "last_payment", [call("list_payments", account_id=sub.account_id)], answer, [money(bill.amount)])


def methods_on_file(ctx: GenContext, sub: Subscriber) -> Piece | None:
    named = [ctx.say("method_" + m.kind, last4=m.last4) for m in sub.methods]
    default = named[0]
    answer = {"methods": named, "default": default, "count": len(named)}
    return _read(ctx, sub, "methods_on_file", [call("get_customer_details", customer_id=sub.customer_id)], answer,
                 [m.last4 for m in sub.methods])  # fmt: skip


def handset(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """Whether the phone on the line does 5G and Wi-Fi calling: the line shows the device, the device its features."""
    piece = _read(ctx, sub, "handset", [call("get_line_details", line_id=sub.line_id)],
                  {"device": sub.device_name, "g5": sub.supports_5g, "wifi": sub.supports_wifi_calling}, [sub.device_name])  # fmt: skip
    piece.steps.append(agent(call("get_device_details", device_id=sub.device_id)))
    return piece


@dataclass(frozen=True)
class Read:
    build: Callable[[GenContext, Subscriber], Piece | None]
    one_step: bool = True  # can be asked together with another read


ACCOUNT_READS = {
    "data_left": Read(data_left),
    "open_bill": Read(open_bill),
    "last_payment": Read(last_payment),
    "methods_on_file": Read(methods_on_file),
    "handset": Read(handset, one_step=False),
}
