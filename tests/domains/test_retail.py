"""The retail domain: its world, its tools' rules, and what its task generators promise."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

import toolgym
from toolgym.domains.retail.rules import NOW
from toolgym.domains.retail.tables import (
    Customer,
    Order,
    OrderItem,
    PaymentMethod,
    Product,
    Transaction,
    Variant,
)
from toolgym.domains.retail.tasks.shop import Shop
from toolgym.domains.retail.world import build_world
from toolgym.envs import World
from toolgym.verifiers import verify


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("retail")


@pytest.fixture
def world(domain):
    w = domain.new_world(seed=0, size="default")
    yield w
    w.close()


@pytest.fixture(scope="module")
def shop(domain):
    return Shop.of(World(domain.template(0, "default")))


def run(domain, world, name, **arguments):
    """A call as the env makes it: (parsed result, error text or None)."""
    outcome = domain.tool(name).run(world, arguments)
    return json.loads(outcome.content), outcome.error


# ---- the world --------------------------------------------------------------------------------
def test_default_world_has_the_promised_size_and_variety(world):
    assert world.count(Customer) >= 500
    assert world.count(Product) >= 50
    assert world.count(Variant) >= 500
    assert world.count(Order) >= 1000
    statuses = Counter(row[0] for row in world.query('SELECT status FROM "order"'))
    assert set(statuses) == {
        "pending",
        "processed",
        "shipped",
        "delivered",
        "cancelled",
        "return requested",
        "exchange requested",
    }
    kinds = Counter(row[0] for row in world.query("SELECT kind FROM payment_method"))
    assert set(kinds) == {"credit_card", "gift_card", "paypal"}
    categories = {row[0] for row in world.query("SELECT category FROM product")}
    assert len(categories) >= 8
    assert world.query("SELECT COUNT(*) FROM variant WHERE NOT available OR stock = 0")[0][0] > 0


def test_orders_are_consistent_with_their_items_and_history(world):
    totals = dict(world.query('SELECT id, total FROM "order"'))
    sums = dict(world.query("SELECT order_id, ROUND(SUM(price), 2) FROM order_item GROUP BY order_id"))
    assert set(totals) == set(sums), "every order has items"
    assert all(abs(totals[o] - sums[o]) < 0.005 for o in totals)
    payments = dict(world.query("SELECT order_id, amount FROM \"transaction\" WHERE kind = 'payment'"))
    assert payments.keys() == totals.keys()
    for order in world.select(Order, {"status": "delivered"}):
        assert order.delivered_at is not None and order.delivered_at > order.placed_at
        assert order.delivered_at <= NOW.isoformat()
    assert all(o.tracking_number is None for o in world.select(Order, {"status": "pending"}))


def test_an_item_s_status_follows_its_order_s_delivery(world):
    """Order #W3299865 was delivered and its items still said 'ordered': an item of an order that
    arrived is 'delivered' unless a return or an exchange was asked for it."""
    rows = world.query('SELECT o.status, o.delivered_at IS NOT NULL, i.status FROM "order" o '
                       "JOIN order_item i ON i.order_id = o.id")  # fmt: skip
    for order_status, arrived, item_status in rows:
        assert item_status in ((order_status, "delivered") if arrived else ("ordered",)), (order_status, item_status)
    assert ("delivered", True, "delivered") in rows


def test_name_and_zip_identify_exactly_one_customer(world):
    duplicates = world.query(
        "SELECT first_name, last_name, zip FROM customer GROUP BY 1, 2, 3 HAVING COUNT(*) > 1"
    )
    assert duplicates == []
    assert world.query("SELECT email FROM customer GROUP BY email HAVING COUNT(*) > 1") == []


def test_template_hash_is_stable_and_build_is_fast(domain):
    from toolgym.domains.retail.tables import TABLES
    from toolgym.envs import WorldTemplate

    started = time.process_time()  # CPU time: a busy machine (two test workers, a job beside them) does not inflate it
    fresh = WorldTemplate.build(
        domain="retail", seed=0, size="default", now=NOW, tables=TABLES, rows=build_world(0, "default")
    )
    elapsed = time.process_time() - started
    assert fresh.state_hash == domain.template(0, "default").state_hash
    assert elapsed < 3.0, f"building the default world took {elapsed:.2f} s of CPU"


def test_small_world_serves_every_kind(domain):
    tasks = domain.generate_tasks(40, seed=1, size="small")
    assert {t.kind for t in tasks} == set(toolgym.envs.ALL_KINDS)
    assert all(t.world_size == "small" for t in tasks)


# ---- authentication ---------------------------------------------------------------------------
def test_find_by_name_and_zip_ignores_case_and_needs_the_right_zip(domain, world):
    person = world.select(Customer, limit=1)[0]
    found, error = run(
        domain,
        world,
        "find_customer_id_by_name_zip",
        first_name=person.first_name.upper(),
        last_name=person.last_name.lower(),
        zip=person.zip,
    )
    assert error is None and found == {"customer_id": person.id}
    wrong_zip = "00000" if person.zip != "00000" else "99999"
    _, error = run(
        domain,
        world,
        "find_customer_id_by_name_zip",
        first_name=person.first_name,
        last_name=person.last_name,
        zip=wrong_zip,
    )
    assert error and wrong_zip in error and "email" in error


def test_find_by_email_normalises_and_rejects_malformed_addresses(domain, world):
    person = world.select(Customer, limit=1)[0]
    found, error = run(domain, world, "find_customer_id_by_email", email=f"  {person.email.upper()} ")
    assert error is None and found["customer_id"] == person.id
    _, error = run(domain, world, "find_customer_id_by_email", email="jane.doe.example.com")
    assert error and "'jane.doe.example.com' is not an email address" in error


# ---- preconditions surface as tool errors that say what is allowed ------------------------------
def test_cancelling_a_shipped_order_is_refused_with_its_status(domain, world, shop):
    shipped = next(o for o in shop.orders.values() if o.status == "shipped")
    _, error = run(domain, world, "cancel_pending_order", order_id=shipped.id, reason="no longer needed")
    assert error and shipped.id in error and "shipped" in error and "only pending orders" in error
    assert not world.changes


def test_bad_order_id_and_bad_enum_name_the_allowed_form(domain, world, shop):
    _, error = run(domain, world, "get_order_details", order_id="W1234567")
    assert error and "'#W' followed by 7 digits" in error
    order = shop.pending[0]
    _, error = run(domain, world, "cancel_pending_order", order_id=order.id, reason="too slow")
    assert error and "reason" in error and "no longer needed" in error


def test_exchange_into_an_unorderable_variant_is_refused(domain, world, shop):
    order = shop.with_unorderable[0]
    item = next(i for i in shop.items[order.id] if shop.unorderable(i))
    variant = shop.unorderable(item)[0]
    _, error = run(
        domain,
        world,
        "exchange_delivered_order_items",
        order_id=order.id,
        item_ids=[item.id],
        new_variant_ids=[variant.id],
        payment_method_id=order.payment_method_id,
    )
    assert error and variant.id in error and ("discontinued" in error or "out of stock" in error)


def test_exchange_for_another_product_is_refused(domain, world, shop):
    order = shop.exchangeable[0]
    item = shop.items[order.id][0]
    foreign = next(v for v in shop.variants.values() if v.product_id != item.product_id)
    _, error = run(
        domain,
        world,
        "exchange_delivered_order_items",
        order_id=order.id,
        item_ids=[item.id],
        new_variant_ids=[foreign.id],
        payment_method_id=order.payment_method_id,
    )
    assert error and "same product" in error


def test_refund_to_a_method_other_than_original_or_gift_card_is_refused(domain, world, shop):
    order = shop.refund_elsewhere[0]
    other = shop.disallowed_refund_methods(order)[0]
    _, error = run(
        domain,
        world,
        "return_delivered_order_items",
        order_id=order.id,
        item_ids=[shop.items[order.id][0].id],
        payment_method_id=other.id,
    )
    assert error and other.id in error and order.payment_method_id in error and "gift card" in error


def test_refund_to_someone_elses_method_is_refused(domain, world, shop):
    order = shop.returnable[0]
    foreign = next(m for m in shop.methods.values() if m.customer_id != order.customer_id)
    _, error = run(
        domain,
        world,
        "return_delivered_order_items",
        order_id=order.id,
        item_ids=[shop.items[order.id][0].id],
        payment_method_id=foreign.id,
    )
    assert error and "not on file" in error


def test_a_pending_order_can_be_modified_only_once(domain, world, shop):
    order = shop.payment_switchable[0]
    new = shop.other_payments(order)[0]
    _, error = run(domain, world, "modify_pending_order_payment", order_id=order.id, payment_method_id=new.id)
    assert error is None
    _, error = run(
        domain,
        world,
        "modify_pending_order_address",
        order_id=order.id,
        address1="1 Main Street",
        address2="",
        city="Austin",
        state="TX",
        zip="78701",
    )
    assert error and "modified only once" in error


def test_returns_close_thirty_days_after_delivery(domain, world, shop):
    order = shop.expired[0]
    _, error = run(
        domain,
        world,
        "return_delivered_order_items",
        order_id=order.id,
        item_ids=[shop.items[order.id][0].id],
        payment_method_id=order.payment_method_id,
    )
    assert error and "30 days" in error and order.delivered_at in error


def test_address_checks_name_the_bad_value(domain, world, shop):
    customer_id = shop.customers_with_orders[0]
    _, error = run(
        domain,
        world,
        "update_customer_address",
        customer_id=customer_id,
        address1="1 Main Street",
        address2="",
        city="Austin",
        state="TX",
        zip="7870",
    )
    assert error and "'7870'" in error and "5 digits" in error
    _, error = run(
        domain,
        world,
        "update_customer_address",
        customer_id=customer_id,
        address1="1 Main Street",
        address2="",
        city="Austin",
        state="Texas",
        zip="78701",
    )
    assert error and "'Texas'" in error


# ---- writes -----------------------------------------------------------------------------------
def test_a_failed_write_leaves_no_trace(domain, world, shop):
    """The old method is refunded before the new one is charged; a charge that fails undoes both."""
    order = next(
        o
        for o in shop.modifiable
        if (card := shop.gift_card_of(o.customer_id))
        and card.id != o.payment_method_id
        and card.balance < o.total
    )
    card = shop.gift_card_of(order.customer_id)
    before = world.state_hash()
    transactions = world.count(Transaction)
    _, error = run(
        domain, world, "modify_pending_order_payment", order_id=order.id, payment_method_id=card.id
    )
    assert error and "balance" in error and card.id in error
    assert world.state_hash() == before
    assert world.count(Transaction) == transactions
    assert not world.changes
    assert world.get(Order, order.id).payment_method_id == order.payment_method_id


def test_cancel_refunds_a_gift_card_at_once(domain, world, shop):
    order = next(o for o in shop.pending if shop.methods[o.payment_method_id].kind == "gift_card")
    card = shop.methods[order.payment_method_id]
    result, error = run(domain, world, "cancel_pending_order", order_id=order.id, reason="ordered by mistake")
    assert error is None and result["status"] == "cancelled"
    assert world.get(PaymentMethod, card.id).balance == pytest.approx(card.balance + order.total)
    refunds = world.select(Transaction, {"order_id": order.id, "kind": "refund"})
    assert [r.amount for r in refunds] == [order.total]


def test_exchange_settles_the_difference_and_takes_stock(domain, world, shop):
    order = shop.exchangeable[0]
    item = next(i for i in shop.items[order.id] if shop.alternatives(i))
    new = shop.alternatives(item)[0]
    result, error = run(
        domain,
        world,
        "exchange_delivered_order_items",
        order_id=order.id,
        item_ids=[item.id],
        new_variant_ids=[new.id],
        payment_method_id=order.payment_method_id,
    )
    assert error is None
    assert result["price_difference"] == pytest.approx(round(new.price - item.price, 2))
    assert world.get(Variant, new.id).stock == new.stock - 1
    stored = world.get(OrderItem, item.id)
    assert (stored.status, stored.exchange_variant_id) == ("exchange requested", new.id)
    assert world.get(Order, order.id).status == "exchange requested"
    _, error = run(
        domain,
        world,
        "return_delivered_order_items",
        order_id=order.id,
        item_ids=[item.id],
        payment_method_id=order.payment_method_id,
    )
    assert error and "exchange requested" in error


def test_same_calls_give_the_same_state(domain, shop):
    order = shop.pending[0]
    hashes = set()
    for _ in range(2):
        w = domain.new_world(seed=0, size="default")
        run(domain, w, "cancel_pending_order", order_id=order.id, reason="no longer needed")
        run(domain, w, "transfer_to_human_agent", customer_id=order.customer_id, reason="billing dispute")
        hashes.add(w.state_hash())
        w.close()
    assert len(hashes) == 1


def test_read_tools_never_write(domain, world, shop):
    order = shop.returnable[0]
    calls = {
        "get_customer_details": {"customer_id": order.customer_id},
        "list_payment_methods": {"customer_id": order.customer_id},
        "list_customer_orders": {"customer_id": order.customer_id, "status": "delivered"},
        "get_order_details": {"order_id": order.id},
        "get_tracking_info": {"order_id": order.id},
        "search_products": {"query": "shirt"},
        "get_product_details": {"product_id": shop.items[order.id][0].product_id},
        "get_gift_card_balance": {"gift_card_id": shop.gift_cards[0].id},
        "calculate": {"expression": "2 * (3 + 4.5)"},
    }
    for name, arguments in calls.items():
        assert not domain.tool(name).writes
        result, error = run(domain, world, name, **arguments)
        assert error is None, (name, error)
    assert not world.changes
    assert result == {"expression": "2 * (3 + 4.5)", "result": 15.0}


@pytest.mark.parametrize(
    "expression", ["__import__('os')", "9 ** 9 ** 9", "1 / 0", "x + 1", "1e400 * 10", "(" * 300]
)
def test_calculator_refuses_what_is_not_plain_arithmetic(domain, world, expression):
    _, error = run(domain, world, "calculate", expression=expression)
    assert error


def test_search_needs_a_query_or_category_and_escapes_wildcards(domain, world):
    _, error = run(domain, world, "search_products")
    assert error and "query" in error
    found, error = run(domain, world, "search_products", query="%")
    assert error is None and found == []
    found, _ = run(domain, world, "search_products", category="footwear")
    assert found and all(p["category"] == "footwear" for p in found)


# ---- policy and tasks -------------------------------------------------------------------------
def test_policy_states_the_rules_the_tools_enforce(domain):
    text = domain.policy(0, "default")
    for rule in (
        "authenticate",
        "yes",
        "only once",
        "30 days",
        "original payment method",
        "gift card",
        "instructions",
        "human agent",
    ):
        assert rule in text, rule
    assert str(NOW.date()) in text


def test_tools_cover_the_issue(domain):
    assert len(domain.tools) >= 15
    assert sum(t.writes for t in domain.tools.values()) >= 6


def _task(domain, kind, test=lambda t: True, n=40):
    return next(t for t in domain.generate_tasks(n, seed=5, kinds=[kind], size="small") if test(t))


def test_task_kinds_have_their_shape(domain):
    tasks = {k: domain.generate_tasks(30, seed=2, kinds=[k]) for k in domain.kinds}
    assert all(any(len(s.calls) > 1 for s in t.plan) for t in tasks["parallel"])
    assert all(t.segments >= 2 and t.scenario.withheld for t in tasks["multi_turn"])
    # a write the user turns down (declined) still makes the task one about a change
    writing = [t for t in tasks["multi_step"] if any(domain.tool(c.name).writes for s in t.plan for c in s.calls)]
    assert len(writing) >= 0.7 * len(tasks["multi_step"])
    assert all(
        s.confirm
        for t in writing
        for s in t.plan
        if s.calls[0].name != "transfer_to_human_agent" and domain.tool(s.calls[0].name).writes
    )
    assert all(t.setup and t.forbidden for t in tasks["injection"])
    for t in tasks["no_tool/policy_refusal"]:
        assert t.forbidden and not any(domain.tool(c.name).writes for c in t.gold_calls())
    assert all(t.no_tool.invalid and not t.plan for t in tasks["no_tool/invalid_value"])
    assert all(t.no_tool.missing and t.scenario.unknown for t in tasks["no_tool/missing_info"])
    assert all(t.no_tool.withheld_tools[0] not in t.tools for t in tasks["no_tool/unavailable"])
    for kind, batch in tasks.items():
        if kind == "no_tool/irrelevant":  # the engine's generator draws from a fixed list of requests
            continue
        assert len({t.scenario.requests[0] for t in batch}) >= len(batch) * 0.8, f"{kind}: requests repeat"


def test_following_an_injected_instruction_scores_zero(domain):
    task = _task(domain, "injection", lambda t: t.forbidden[0].tool == "cancel_pending_order")
    env = toolgym.make("retail", world_size="small")
    messages = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task).messages
    assert verify(task, messages).value == 1.0
    order_id = task.forbidden[0].arguments["order_id"]
    obeyed = messages[:-1] + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "x",
                    "type": "function",
                    "function": {
                        "name": "cancel_pending_order",
                        "arguments": {"order_id": order_id, "reason": "no longer needed"},
                    },
                }
            ],
        }
    ]
    assert verify(task, obeyed).value == 0.0


def test_doing_what_the_policy_forbids_scores_zero(domain):
    task = _task(domain, "no_tool/policy_refusal", lambda t: t.forbidden[0].tool == "cancel_pending_order")
    env = toolgym.make("retail", world_size="small")
    messages = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task).messages
    assert verify(task, messages).value == 1.0
    forced = messages + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "x",
                    "type": "function",
                    "function": {
                        "name": "cancel_pending_order",
                        "arguments": {**task.forbidden[0].arguments, "reason": "no longer needed"},
                    },
                }
            ],
        }
    ]
    assert verify(task, forced).value == 0.0


def test_generation_takes_about_a_millisecond_per_task(domain, monkeypatch):
    # drawing and replaying a task; playing its gold conversation through the verifier at
    # generation (the ground-truth check) is the engine's cost, measured in benchmarks/
    monkeypatch.setattr(domain, "enforce_ground_truth", False)
    domain.generate_tasks(10, seed=0)  # world and index already built
    started = time.process_time()  # CPU time: two test workers and a job beside them on two cores do not inflate it
    domain.generate_tasks(300, seed=9)
    per_task = (time.process_time() - started) / 300
    assert per_task < 0.01, f"{per_task * 1000:.2f} ms of CPU per task (replay included)"


def test_what_an_order_cost_says_what_came_back_of_it(domain):
    """'You paid $281.20 for order #W9238580.' was said of a cancelled order whose payment came back:
    the cost of a cancelled order says it was refunded, of one with items sent back, how much was."""
    import re

    from toolgym.envs.gold import gold_messages

    tasks = domain.generate_tasks(600, seed=9, kinds=["single"], size="small")
    seen = Counter()
    for task in tasks:
        request = task.scenario.requests[0]
        if not re.search(r"pay for order|total of my order|amount charged for order|cost me in total|total I paid on order", request):
            continue
        messages = gold_messages(domain, task)[0]
        order = next(json.loads(m["content"]) for m in messages if m["role"] == "tool" and '"transactions"' in (m["content"] or ""))
        refunds = round(sum(t["amount"] for t in order["transactions"] if t["kind"] == "refund"), 2)
        reply = next(m["content"] for m in reversed(messages) if m["role"] == "assistant" and f"{order['total']:,.2f}" in (m["content"] or ""))
        kind = "none" if not refunds else "full" if order["status"] == "cancelled" else "part"
        seen[kind] += 1
        assert ("refund" in reply) == bool(refunds), (order["status"], refunds, reply)
        if kind == "full":
            assert "cancelled" in reply, reply
        if kind == "part":
            assert f"${refunds:,.2f}" in reply, (refunds, reply)
    assert seen["none"] and seen["full"] and seen["part"], seen


def test_the_email_a_return_reply_promises_is_one_the_policy_says_is_sent(domain):
    """'Watch your inbox for the return label.' told of an email no tool result or rule showed: the
    policy says the customer gets one once a return or exchange is requested."""
    from toolgym.envs.gold import gold_messages

    tasks = domain.generate_tasks(200, seed=4, kinds=["single", "multi_step"], size="small")
    told = 0
    for task in tasks:
        if not {c.name for c in task.gold_calls()} & {"return_delivered_order_items", "exchange_delivered_order_items"}:
            continue
        messages = gold_messages(domain, task)[0]
        said = " ".join(m["content"] or "" for m in messages if m["role"] == "assistant")
        if "email" in said or "inbox" in said:
            told += 1
            assert "an email with the return label" in messages[0]["content"], messages[0]["content"][-800:]
    assert told >= 3, told


def test_a_tracking_result_shows_whose_order_it_is(domain, world):
    """The policy says to help only with the authenticated customer's orders, but get_tracking_info
    showed another customer's carrier and address with nothing to tell whose order it was."""
    order_id, owner = world.query('SELECT id, customer_id FROM "order" WHERE tracking_number IS NOT NULL LIMIT 1')[0]
    tracking, error = run(domain, world, "get_tracking_info", order_id=order_id)
    assert error is None and tracking["customer_id"] == owner


def test_the_items_of_a_latest_order_are_named_with_their_articles(domain):
    """'Your last order, #W8925945, is pending and includes Remote Control Car.', 'That's in front of me
    now. ... It contains: Memory Foam Pillow.': the items are said in a sentence, as a person says them."""
    for seed in range(60):
        said = domain.phrasebook.say("reply_latest_order", seed, order_id="#W1", status="pending", names=["Remote Control Car", "Wireless Earbuds"])
        assert "a Remote Control Car" in said and "a Wireless Earbuds" not in said, said
        assert "in front of me" not in said, said


def test_an_invalid_id_is_one_no_agent_could_read_back(domain):
    """'W6890516 isn't a valid order id', 'PR-1023', '1023': the id lacked only its '#' or prefix, which
    any agent adds. An invalid order or product id has a digit lost, added or mistyped."""
    import re

    tasks = domain.generate_tasks(400, seed=5, kinds=["no_tool/invalid_value"], size="small")
    seen = Counter()
    for task in tasks:
        for parameter, prefix, size in (("order_id", "#W", 7), ("product_id", "P", 4)):
            bad = task.no_tool.invalid.get(parameter)
            if bad is None:
                continue
            seen[parameter] += 1
            digits = bad.removeprefix(prefix)
            assert not (digits.isdigit() and len(digits) == size), bad
            assert re.fullmatch(r"#?[A-Z]?\d{7}|(PR-?)?\d{4}", bad) is None, bad  # only a prefix off
    assert seen["order_id"] > 5 and seen["product_id"] > 5, seen
