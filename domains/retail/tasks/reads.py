"""Pieces that only read: one lookup, a chain of lookups, or independent lookups made together."""

from __future__ import annotations

from toolgym.envs import Fact, GenContext, Step, Utterance, call, money, said_amount
from toolgym.envs.phrasing import article

from ..access import options_of
from ..calculator import evaluate
from ..tools import search_products
from ..world import catalog
from .base import Builder, Piece, any_customer, card_number, details, order_fact, order_piece, shop

ASKED_SHARE = 0.75  # sums that leave out the customer's own figure (a tax rate): the gold asks for it


def _stock_state(variant) -> str:
    if not variant.available:
        return "discontinued"
    return "in stock" if variant.stock > 0 else "out of stock"


def _options(variant) -> str:
    return ", ".join(options_of(variant).values())


# ---- about one order (the customer is authenticated) --------------------------------------------
def _own_order(ctx: GenContext, customer_id: str | None, test=None):
    """One of the customer's orders (anyone's when no customer is given) that passes `test`, or None."""
    s = shop(ctx)
    orders = s.orders_of.get(customer_id, []) if customer_id else list(s.orders.values())
    orders = [o for o in orders if test(o)] if test else orders
    return ctx.pick(orders) if orders else None


def order_status(ctx: GenContext, customer_id: str | None) -> Piece | None:
    order = _own_order(ctx, customer_id)
    if order is None:
        return None
    return order_piece(
        order,
        request=ctx.say("req_order_status", order_id=order.id),
        goal=f"Find out the status of your order {order.id}.",
        steps=[details(order.id)],
        reply=Utterance(intent="reply_order_status", vars={"order_id": order.id, "status": order.status}),
        outputs=[order.status],
    )


def order_total(ctx: GenContext, customer_id: str | None) -> Piece | None:
    """What an order cost; what came back of it too, for a cancelled order (all of it) or items sent
    back (their prices): the order's transactions show the refund, and "You paid $281.20" alone would
    say the money is still spent."""
    order = _own_order(ctx, customer_id)
    if order is None:
        return None
    refund = shop(ctx).refunded.get(order.id, 0.0)
    if not refund:
        intent, outputs = "reply_order_total", [money(order.total)]
    elif order.status == "cancelled":
        intent, outputs = "reply_order_total_refunded", [money(order.total), "cancelled"]
    else:
        intent, outputs = "reply_order_total_part_refunded", [money(order.total), money(refund)]
    return order_piece(
        order,
        request=ctx.say("req_order_total", order_id=order.id),
        goal=f"Find out how much you paid for order {order.id}" + (", and what was refunded." if refund else "."),
        steps=[details(order.id)],
        reply=Utterance(intent=intent, vars={"order_id": order.id, "total": order.total, "refund": refund}),
        outputs=outputs,
    )


def tracking(ctx: GenContext, customer_id: str | None) -> Piece | None:
    order = _own_order(ctx, customer_id, lambda o: o.tracking_number)
    if order is None:
        return None
    return Piece(  # not an order_piece: the tracking tool does not show the order's note
        request=ctx.say("req_tracking", order_id=order.id),
        goal=f"Get the carrier and tracking number of order {order.id}.",
        steps=[Step(calls=[call("get_tracking_info", order_id=order.id)])],
        reply=Utterance(
            intent="reply_tracking",
            vars={
                "order_id": order.id,
                "carrier": order.carrier,
                "tracking": order.tracking_number,
                "status": order.status,
            },
        ),
        outputs=[str(order.tracking_number)],
        facts=[order_fact(order.id)],
        keys=frozenset({order.id}),
        subject=order.customer_id,
    )


# ---- about the account ----------------------------------------------------------------------------
def pending_orders(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    if customer_id is None:
        customer_id = ctx.pick(s.pending).customer_id
    orders = s.orders_of.get(customer_id, [])
    pending = [o for o in orders if o.status == "pending"]
    if not pending:
        return None
    return Piece(
        request=ctx.say("req_pending_orders"),
        goal="Find out which of your orders are still pending.",
        steps=[Step(calls=[call("list_customer_orders", customer_id=customer_id, status="pending")])],
        reply=Utterance(
            intent="reply_order_list", vars={"orders": [{"id": o.id, "total": o.total} for o in pending]}
        ),
        outputs=[o.id for o in pending],
        keys=frozenset(o.id for o in orders),
        subject=customer_id,
    )


def latest_order(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    customer_id = customer_id or any_customer(ctx)
    orders = s.orders_of.get(customer_id, [])
    if not orders:
        return None
    latest = orders[0]
    names = list(dict.fromkeys(i.name for i in s.items[latest.id]))
    return Piece(
        request=ctx.say("req_latest_order"),
        goal="Find out what is in your most recent order and its status.",
        steps=[
            Step(calls=[call("list_customer_orders", customer_id=customer_id)]),
            details(latest.id),
        ],
        reply=Utterance(
            intent="reply_latest_order", vars={"order_id": latest.id, "status": latest.status, "names": names}
        ),
        outputs=[latest.id, *names],
        keys=frozenset(o.id for o in orders),
        subject=customer_id,
        order_id=latest.id,
    )


def payment_methods(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    customer_id = customer_id or any_customer(ctx)
    methods = s.methods_of.get(customer_id, [])
    described = [s.method_name(m.id) for m in methods]
    balances = [m.balance for m in methods if m.kind == "gift_card"]
    return Piece(
        request=ctx.say("req_payment_methods"),
        goal="Find out which payment methods are on your account (and any gift card balance).",
        steps=[Step(calls=[call("list_payment_methods", customer_id=customer_id)])],
        reply=Utterance(intent="reply_payment_methods", vars={"methods": described, "balances": balances}),
        outputs=[m.last_four for m in methods if m.last_four] + [money(b or 0) for b in balances] or described[:1],
        keys=frozenset(m.id for m in methods),
        subject=customer_id,
    )


def default_address(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    customer_id = customer_id or any_customer(ctx)
    person = s.customers[customer_id]
    unit = f", {person.address2}" if person.address2 else ""
    text = f"{person.address1}{unit}, {person.city}, {person.state} {person.zip}"
    return Piece(
        request=ctx.say("req_default_address"),
        goal="Check which default address the shop has for you.",
        steps=[Step(calls=[call("get_customer_details", customer_id=customer_id)])],
        reply=Utterance(intent="reply_default_address", vars={"address": text}),
        outputs=[person.address1, person.zip],
        keys=frozenset({f"address:{customer_id}"}),
        subject=customer_id,
    )


# ---- the catalog and other lookups anyone may make ------------------------------------------------
def variant_price(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    s = shop(ctx)
    product = ctx.pick(list(s.products.values()))
    variant = ctx.pick(s.variants_of[product.id])
    state = _stock_state(variant)
    # the option is said with the question: a customer who has one in mind names it ("in the option
    # I'd like", held back until asked, is no way a person speaks)
    wanted = Fact(key="wanted_option", value=_options(variant), label="preferred option", keywords=["preferred option"])
    return Piece(
        request=ctx.say("req_variant_price", product_id=product.id, name=product.name, options=_options(variant)),
        goal=f"Learn the price of the {product.name} ({product.id}) in {_options(variant)} and whether it can be ordered.",
        steps=[Step(calls=[call("get_product_details", product_id=product.id)], needs=[wanted.key])],
        reply=Utterance(
            intent="reply_variant",
            vars={"name": product.name, "options": _options(variant), "price": variant.price, "state": state},
        ),
        outputs=[money(variant.price), state],
        keys=frozenset({f"product:{product.id}"}),
        product_id=product.id,
        facts=[wanted],
    )


def cheapest_variant(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    s = shop(ctx)
    product = ctx.pick(list(s.products.values()))
    orderable = [v for v in s.variants_of[product.id] if v.available and v.stock > 0]
    if not orderable:
        return None
    low = min(v.price for v in orderable)
    cheapest = [_options(v) for v in orderable if v.price == low]
    return Piece(
        request=ctx.say("req_cheapest", product_id=product.id, name=product.name),
        goal=f"Find the cheapest option of the {product.name} ({product.id}) that is in stock.",
        steps=[Step(calls=[call("get_product_details", product_id=product.id)])],
        reply=Utterance(
            intent="reply_cheapest", vars={"name": product.name, "options": cheapest[0], "price": low}
        ),
        outputs=[money(low)],
        keys=frozenset({f"product:{product.id}"}),
        product_id=product.id,
    )


def _search(ctx: GenContext, request: str, goal: str, what: str, **query: str) -> Piece | None:
    """A catalog search the user words as `request`; None when it finds nothing."""
    names = [r["name"] for r in search_products(ctx.world, **query)]
    if not names:
        return None
    return Piece(
        request=request,
        goal=goal,
        steps=[Step(calls=[call("search_products", **query)])],
        reply=Utterance(intent="reply_products", vars={"what": what, "names": names}),
        outputs=names,
        keys=frozenset({"catalog"}),
    )


def search_category(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    category = ctx.pick(sorted({p.category for p in shop(ctx).products.values()}))
    return _search(
        ctx,
        ctx.say("req_search_category", category=category),
        f"Find out which {category} products the shop sells.",
        category,
        category=category,
    )


def _some(keyword: str) -> str:
    """'a backpack', 'an e-reader', but 'sneakers' and 'building blocks': a plural takes no article."""
    plural = keyword.endswith("s") and not keyword.endswith(("ss", "us"))
    return keyword if plural else article(keyword)


def search_keyword(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    sold = {p.name for p in shop(ctx).products.values()}
    keyword = ctx.pick([line["keyword"] for line in catalog() if line["name"] in sold])
    wanted = _some(keyword)
    return _search(
        ctx,
        ctx.say("req_search_keyword", keyword=keyword, wanted=wanted),
        f"Find out whether the shop sells {wanted}, and which products match.",
        keyword,
        query=keyword,
    )


def gift_card_balance(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    card = ctx.pick(shop(ctx).gift_cards)
    number = card_number(card.id)
    return Piece(
        request=ctx.say("req_gift_card_balance", number=number),
        goal=f"Find out the balance of the gift card numbered {number}.",
        steps=[Step(calls=[call("get_gift_card_balance", gift_card_id=card.id)])],
        reply=Utterance(intent="reply_gift_balance", vars={"number": number, "balance": card.balance}),
        outputs=[said_amount(card.balance or 0, "no balance")],
        facts=[
            Fact(
                key="gift_card",
                value=number,
                label="gift card number",
                keywords=["gift card number", "gift card id"],
            )
        ],
        keys=frozenset({card.id}),
    )


_SHAPES = ("discount", "split", "sum", "tax", "leftover")


def arithmetic(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    """A shopping sum, worked out with the calculator tool."""
    rng = ctx.rng
    prices = [f"{v.price:.2f}" for v in rng.sample(list(shop(ctx).variants.values()), 3)]
    shape = ctx.pick(_SHAPES)
    values: dict[str, object]
    if shape == "discount":
        values = {"count": rng.randint(2, 6), "price": prices[0], "percent": rng.choice((10, 15, 20, 25, 30))}
        expression = f"{values['count']} * {prices[0]} * (1 - {values['percent']} / 100)"
    elif shape == "split":
        values = {"price": prices[0], "people": rng.randint(2, 6)}
        expression = f"{prices[0]} / {values['people']}"
    elif shape == "sum":
        values = {"prices": prices}
        expression = " + ".join(str(p) for p in prices)
    elif shape == "tax":
        values = {"price": prices[0], "percent": rng.choice((4, 5, 6, 6.25, 7, 7.5, 8.25, 9))}
        expression = f"{prices[0]} * (1 + {values['percent']} / 100)"
    else:
        balance = f"{float(prices[0]) + float(prices[1]) + rng.uniform(5, 200):.2f}"
        values = {"balance": balance, "prices": prices[:2]}
        expression = f"{balance} - {prices[0]} - {prices[1]}"
    result = evaluate(expression)
    mine = _CALC_ASKED.get(shape)  # the one figure only the customer knows: asked for in half of these
    fact = Fact(key=f"calc_{mine[0]}", value=f"{values[mine[0]]}{mine[2]}", label=mine[1], keywords=[mine[1]]) if mine else None
    ask = fact is not None and rng.random() < ASKED_SHARE
    return Piece(
        request=ctx.say(f"req_calc_{shape}_ask" if ask else f"req_calc_{shape}", **values),
        goal="Get a shopping sum worked out exactly.",
        steps=[Step(calls=[call("calculate", expression=expression)], needs=[fact.key] if fact else [])],
        reply=Utterance(intent="reply_calc", vars={"result": result, "shape": shape, "percent": values.get("percent", "")}),
        outputs=[money(result)],
        keys=frozenset({"calculator"}),
        facts=[fact] if fact else [],
        withheld=[fact.key] if fact and ask else [],
    )


# the sums whose figure the customer may leave out (value name, how it is asked for, the unit said after it)
_CALC_ASKED = {"discount": ("percent", "discount percentage", "%"), "split": ("people", "head count", ""),
               "tax": ("percent", "sales tax rate", "%")}  # fmt: skip


# ---- independent lookups made together -----------------------------------------------------------
def several_statuses(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    if customer_id is None:
        customer_id = ctx.pick([c for c, orders in s.orders_of.items() if len(orders) >= 2] or [""])
    orders = s.orders_of.get(customer_id or "", [])
    if len(orders) < 2:
        return None
    chosen = ctx.rng.sample(orders, min(len(orders), ctx.rng.choice((2, 2, 3))))
    return Piece(
        request=ctx.say("req_several_statuses", order_ids=[o.id for o in chosen]),
        goal="Find out the status of each of these orders: " + ", ".join(o.id for o in chosen) + ".",
        steps=[Step(calls=[call("get_order_details", order_id=o.id) for o in chosen])],
        reply=Utterance(
            intent="reply_statuses", vars={"orders": [{"id": o.id, "status": o.status} for o in chosen]}
        ),
        outputs=list(dict.fromkeys(o.status for o in chosen)),
        facts=[order_fact(o.id, f"order_id_{n}") for n, o in enumerate(chosen)],
        keys=frozenset(o.id for o in chosen),
        subject=customer_id,
    )


def several_trackings(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    tracked = {c: [o for o in orders if o.tracking_number] for c, orders in s.orders_of.items()}
    if customer_id is None:
        customer_id = ctx.pick([c for c, orders in tracked.items() if len(orders) >= 2] or [""])
    orders = tracked.get(customer_id or "", [])
    if len(orders) < 2:
        return None
    chosen = ctx.rng.sample(orders, 2)
    return Piece(
        request=ctx.say("req_several_trackings", order_ids=[o.id for o in chosen]),
        goal="Get the tracking numbers of orders " + " and ".join(o.id for o in chosen) + ".",
        steps=[Step(calls=[call("get_tracking_info", order_id=o.id) for o in chosen])],
        reply=Utterance(
            intent="reply_trackings",
            vars={
                "orders": [{"id": o.id, "carrier": o.carrier, "tracking": o.tracking_number} for o in chosen]
            },
        ),
        outputs=[str(o.tracking_number) for o in chosen],
        facts=[order_fact(o.id, f"order_id_{n}") for n, o in enumerate(chosen)],
        keys=frozenset(o.id for o in chosen),
        subject=customer_id,
    )


def compare_variants(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    s = shop(ctx)
    products = ctx.rng.sample(sorted(s.products), ctx.rng.choice((2, 2, 3)))
    asked = []
    for product_id in products:
        variant = ctx.pick(s.variants_of[product_id])
        asked.append(
            {
                "product_id": product_id,
                "name": s.products[product_id].name,
                "options": _options(variant),
                "price": variant.price,
                "state": _stock_state(variant),
            }
        )
    return Piece(
        request=ctx.say("req_compare_variants", products=asked),
        goal="Compare the prices of: "
        + "; ".join(f"{a['name']} ({a['product_id']}) in {a['options']}" for a in asked)
        + ".",
        steps=[Step(calls=[call("get_product_details", product_id=p) for p in products])],
        reply=Utterance(intent="reply_variants", vars={"products": asked}),
        outputs=list(dict.fromkeys(money(a["price"]) for a in asked)),
        keys=frozenset(f"product:{p}" for p in products),
    )


def several_gift_cards(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    cards = ctx.rng.sample(shop(ctx).gift_cards, 2)
    return Piece(
        request=ctx.say("req_several_gift_cards", numbers=[card_number(c.id) for c in cards]),
        goal="Find out the balances of the gift cards numbered "
        + " and ".join(card_number(c.id) for c in cards)
        + ".",
        steps=[Step(calls=[call("get_gift_card_balance", gift_card_id=c.id) for c in cards])],
        reply=Utterance(
            intent="reply_balances",
            vars={"cards": [{"number": card_number(c.id), "balance": c.balance} for c in cards]},
        ),
        outputs=list(dict.fromkeys(said_amount(c.balance or 0, "no balance") for c in cards)),
        keys=frozenset(c.id for c in cards),
    )


def several_categories(ctx: GenContext, customer_id: str | None = None) -> Piece | None:
    s = shop(ctx)
    categories = ctx.rng.sample(sorted({p.category for p in s.products.values()}), 2)
    found = [
        {"category": c, "names": [r["name"] for r in search_products(ctx.world, category=c)]}
        for c in categories
    ]
    return Piece(
        request=ctx.say("req_several_categories", categories=categories),
        goal="Find out what the shop sells in " + " and ".join(categories) + ".",
        steps=[Step(calls=[call("search_products", category=c) for c in categories])],
        reply=Utterance(intent="reply_categories", vars={"found": found}),
        outputs=[n for f in found for n in f["names"]],
        keys=frozenset({"catalog"}),
    )


def account_overview(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    customer_id = customer_id or any_customer(ctx)
    orders = s.orders_of.get(customer_id, [])
    if not orders:
        return None
    person = s.customers[customer_id]
    latest = orders[0]
    return Piece(
        request=ctx.say("req_account_overview"),
        goal="Check the default address on your account and your most recent order.",
        steps=[
            Step(
                calls=[
                    call("get_customer_details", customer_id=customer_id),
                    call("list_customer_orders", customer_id=customer_id),
                ]
            )
        ],
        reply=Utterance(
            intent="reply_account_overview",
            vars={
                "address": f"{person.address1}, {person.city}, {person.state} {person.zip}",
                "count": len(orders),
                "order_id": latest.id,
                "status": latest.status,
            },
        ),
        outputs=[person.address1, latest.id],
        keys=frozenset({f"address:{customer_id}", *(o.id for o in orders)}),
        subject=customer_id,
    )


# which builders serve which kind of task
SINGLE: tuple[Builder, ...] = (
    variant_price,
    cheapest_variant,
    search_category,
    search_keyword,
    gift_card_balance,
    arithmetic,
)
PARALLEL_OPEN: tuple[Builder, ...] = (compare_variants, several_gift_cards, several_categories)
PARALLEL_ACCOUNT: tuple[Builder, ...] = (several_statuses, several_trackings, account_overview)
ACCOUNT_READS: tuple[Builder, ...] = (
    order_status,
    order_total,
    tracking,
    pending_orders,
    latest_order,
    payment_methods,
    default_address,
)
# one call, for the account's own records
ACCOUNT_ONE_CALL: tuple[Builder, ...] = (order_status, order_total, tracking, pending_orders, payment_methods, default_address)
