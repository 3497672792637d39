"""Retail's language: no grammar slip of issue #9's classes, varied openings, the persona's register."""

from __future__ import annotations

import random
import re

import pytest

import toolgym
from toolgym.envs.phrasing import greeting_at, register_of
from toolgym.generators.inspection.grammar import find_grammar
from toolgym.generators.inspection.text import normalize


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("retail")


def _retail_text(domain, task):
    """(role, text) of what retail itself writes in a task: the requests, the replies (rendered in
    several of their wordings) and the actions a confirmation names."""
    yield from (("user", r) for r in task.scenario.requests)
    for reply in task.replies:
        for seed in range(task.seed, task.seed + 4):
            yield "assistant", domain.phrasebook.say(reply.intent, seed, **reply.vars)
    yield from (("assistant", s.confirm) for s in task.plan if s.confirm)


@pytest.mark.parametrize("kind", toolgym.load_domain("retail").kinds)
def test_retail_text_has_no_grammar_slip(domain, kind):
    slips = [
        f"{m.name}: {text}"
        for task in domain.generate_tasks(60, seed=11, kinds=[kind])
        for role, text in _retail_text(domain, task)
        for m in find_grammar(text, role)
    ]
    assert not slips, slips[:5]


@pytest.mark.parametrize("kind", ["single", "parallel", "multi_step", "multi_turn", "injection"])
def test_openings_are_varied_in_every_acting_kind(domain, kind):
    tasks = domain.generate_tasks(150, seed=3, kinds=[kind])
    openings = {normalize(t.scenario.requests[0]) for t in tasks}
    assert len(openings) >= 0.9 * len(tasks)


def test_requests_open_in_the_register_of_the_persona(domain):
    phrases = domain.phrasebook
    checked = 0
    for task in domain.generate_tasks(120, seed=4, kinds=["single"]):
        register = register_of(task.scenario.persona)
        if register not in ("elderly", "chatty"):  # registers whose every opener says something
            continue
        hour = domain.clock(task.world_seed).hour  # a "Good morning" is said for the world's hour
        openers = [greeting_at(o, hour) for o in phrases.variants(f"opener@{register}")]
        assert any(task.scenario.requests[0].startswith(o) for o in openers), (register, task.scenario.requests[0])
        checked += 1
    assert checked >= 10


def test_irrelevant_requests_reach_the_count_as_distinct_lessons(domain):
    tasks = domain.generate_tasks(400, seed=0, kinds=["no_tool/irrelevant"])
    assert len({t.lesson_key() for t in tasks}) == 400


@pytest.mark.parametrize("kind", toolgym.load_domain("retail").kinds)
def test_oracle_chats_have_no_grammar_slip(domain, kind):
    """The whole conversation, the engine's asks, confirmations and closers included."""
    env = toolgym.make("retail")
    slips = []
    for task in domain.generate_tasks(20, seed=12, kinds=[kind]):
        chat = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
        for message in chat.messages:
            text = message.get("content")
            if message["role"] in ("user", "assistant") and isinstance(text, str):
                slips += [f"{m.name}: {text}" for m in find_grammar(text, message["role"])]
    assert not slips, slips[:5]


@pytest.mark.parametrize("methods", [["Discover ending in 4692"], ["Visa ending in 1234", "PayPal account", "gift card"]])
def test_payment_methods_are_listed_in_their_number_with_articles_in_a_sentence(domain, methods):
    """'I see these payment methods: Discover ending in 4692' was plural for one card, and 'Your account
    has gift card and PayPal account saved' had no articles."""
    balances = [12.5] if "gift card" in methods else []
    for seed in range(80):
        said = domain.phrasebook.say("reply_payment_methods", seed, methods=methods, balances=balances)
        assert len(methods) > 1 or "methods" not in said, said
        assert not re.search(r"\b(?:have|has|are|is) (?:Discover|Visa|PayPal|gift)", said), said


def test_an_order_status_reads_as_english_whatever_the_status(domain):
    """'order #W2189212 is exchange requested with USPS' said a status field as a predicate."""
    shapes = {
        "reply_order_status": {"order_id": "#W1"},
        "reply_tracking": {"order_id": "#W1", "carrier": "USPS", "tracking": "12345"},
        "reply_latest_order": {"order_id": "#W1", "names": ["Desk Lamp"]},
    }
    for intent, values in shapes.items():
        for seed in range(60):
            said = domain.phrasebook.say(intent, seed, status="exchange requested", **values)
            assert "exchange requested" in said, said
            assert not re.search(r"\b(?:is|still) exchange requested", said) or "status of" in said, said


def test_a_tracked_order_is_not_said_to_be_on_its_way(domain):
    """'Order #W1 ships with UPS' and 'UPS is delivering #W1' were said of delivered orders."""
    orders = [{"id": "#W1", "carrier": "UPS", "tracking": "123"}, {"id": "#W2", "carrier": "FedEx", "tracking": "456"}]
    for seed in range(60):
        said = domain.phrasebook.say("reply_trackings", seed, orders=orders)
        assert "123" in said and "456" in said and not re.search(r"ships with|is delivering|on its way|travels with|UPS has", said), said
        one = domain.phrasebook.say("reply_tracking", seed, order_id="#W1", carrier="UPS", tracking="123", status="delivered")
        assert not re.search(r"ships with|is delivering|on its way|travels with|UPS has", one), one


def test_a_used_up_gift_card_has_no_balance_and_never_zero_dollars_to_spend():
    """'You can still spend $0.00 with gift card 5751211.' is not how anyone says a card is used up."""
    phrases = toolgym.load_domain("retail").phrasebook
    one = {phrases.say("reply_gift_balance", seed, number="5751211", balance=0.0) for seed in range(200)}
    two = {phrases.say("reply_balances", seed, cards=[{"number": "5751211", "balance": 0.0}, {"number": "6022418", "balance": 12.5}])
           for seed in range(200)}
    assert not [t for t in one | two if "$0.00" in t]
    assert all("no balance" in t for t in one | two)
    assert all("$12.50" in t for t in two)
    assert all("$40.00" in phrases.say("reply_gift_balance", seed, number="1", balance=40.0) for seed in range(50))


def test_a_worked_out_sum_is_answered_as_what_was_asked(domain):
    """"Also: it works out to $45.36." answered "After $65.15 and $267.22, what remains?" after a
    gift card's balance: the answer named nothing, so it read as the balance's."""
    named = {"split": r"\beach\b|per person|share", "leftover": r"\bleft\b|leaves|remains", "sum": r"total|add up|sum|together",
             "tax": r"\btax\b", "discount": r"discount|altogether|in total"}
    tasks = [t for t in domain.generate_tasks(200, seed=9, kinds=["single", "parallel"], size="small")
             if any(r.intent == "reply_calc" for r in t.replies)]
    shapes = set()
    for task in tasks:
        reply = next(r for r in task.replies if r.intent == "reply_calc")
        shapes.add(reply.vars["shape"])
        for seed in range(12):
            text = domain.phrasebook.say("reply_calc", seed, **reply.vars)
            assert re.search(named[reply.vars["shape"]], text, re.I), (task.scenario.requests[0], text)
            assert task.required_outputs[0] in text or any(o in text for o in task.required_outputs), text
    assert shapes == set(named), shapes


def test_two_item_changes_say_where_one_ends_and_the_next_begins(domain):
    """Options hold commas: "the Rechargeable Headlamp is now blue, 300 lumen, the 10-inch Tablet is
    now silver, 64GB, Wi-Fi" and "change the Headlamp from ... to blue, 300 lumen; the 10-inch Tablet
    from ..." ran two changes together. The second is joined with "and" in what the gold says."""
    checked = 0
    for task in domain.generate_tasks(400, seed=5, kinds=["single", "multi_step"]):
        for reply in task.replies:
            changes = reply.vars.get("changes") or []
            if reply.intent not in ("reply_items_modified", "reply_exchanged") or len(changes) != 2:
                continue
            second = changes[1]["name"]
            confirms = [s.confirm for s in task.plan if s.confirm and second in s.confirm]
            said = [domain.phrasebook.say(reply.intent, seed, **reply.vars) for seed in range(40)] + confirms
            for text in said:
                assert f", the {second}" not in text and f", {second}" not in text and f"; the {second} from" not in text, text
            assert any(f"and the {second}" in text for text in confirms), confirms
            checked += 1
    assert checked >= 3


def test_a_returned_item_is_named_with_its_article(domain):
    """"The return of LED Desk Lamp (white, with wireless charger) from order #W9785558 is requested."
    and "Can I return Tennis Racket (grip 2, control) from my order?": an item takes "the"."""
    checked = 0
    for task in domain.generate_tasks(300, seed=8, kinds=["single", "multi_step"]):
        reply = next((r for r in task.replies if r.intent == "reply_returned"), None)
        if reply is None:
            continue
        names = [item.split(" (")[0].removeprefix("the ") for item in reply.vars["items"]]
        said = [*task.scenario.requests, *(s.confirm for s in task.plan if s.confirm),
                *(domain.phrasebook.say("reply_returned", seed, **reply.vars) for seed in range(20))]
        for text in said:
            for name in names:
                if f"{name} (" in text:
                    assert f"the {name} (" in text, text
        checked += 1
    assert checked >= 10, checked


def test_orders_to_choose_from_are_told_apart_by_a_day_in_words(domain):
    """"#W9745473 (placed 2025-05-14, $373.41)" and "the one placed on 2025-05-14": a day as the
    tools write it. The question and the answer say "May 14"."""
    import re

    from tests.conftest import choice_exchanges

    iso = re.compile(r"\b\d{4}-\d\d-\d\d\b")
    asked = 0
    for question, answer in choice_exchanges(domain, domain.generate_tasks(300, seed=41, kinds=["single", "multi_step"]), "order"):
        assert not iso.search(question) and "placed " in question, question
        assert re.search(r"placed on [A-Z][a-z]+ \d{1,2}\b", answer), answer
        asked += 1
    assert asked >= 3, asked


def test_a_catalog_search_term_is_quoted_as_the_customer_s_words(domain):
    """"for teddy bear, the catalog has Plush Teddy Bear on offer": the customer's search words read
    as a bare noun with no article. Every wording quotes them ('for "teddy bear"')."""
    book = domain.phrasebook
    for index, _ in enumerate(book.variants("reply_products")):
        said = book.render("reply_products", index, what="teddy bear", names=["Plush Teddy Bear"])
        assert '"teddy bear"' in said, said


def test_one_catalog_match_is_a_product_named_not_a_list_of_one():
    """'the catalog has Foam Roller on offer', 'Let me list them. ... we carry the Over-Ear Headphones.'"""
    book = toolgym.load_domain("retail").phrasebook
    one = [book.say("reply_products", seed, what="foam roller", names=["Foam Roller"]) for seed in range(200)]
    assert all("the Foam Roller" in text for text in one), one
    assert not [t for t in one if re.search(r"list them|on offer|matches for", t)], one
    several = [book.say("reply_products", seed, what="shoes", names=["Trail Running Shoes", "Cork Footbed Sandals"]) for seed in range(200)]
    assert all("Trail Running Shoes and Cork Footbed Sandals" in text for text in several)


def test_a_return_refused_for_its_age_says_the_delivery_day_as_people_write_it():
    """"order #W5547813 was delivered on 2025-03-05, more than 30 days ago": a form's date in a reply."""
    from toolgym.domains.retail.tasks.refusals import return_expired
    from toolgym.envs import GenContext, World

    retail = toolgym.load_domain("retail")
    world = World(retail.template(0, "default"))
    said = []
    for seed in range(40):
        ctx = GenContext(domain=retail, world=world, rng=random.Random(seed), seed=seed, kind="no_tool/policy_refusal",
                         world_seed=0, size="default")
        piece = return_expired(ctx)
        if piece is not None:
            said.append(str(piece.reply.vars))
    world.close()
    assert said and not [s for s in said if re.search(r"\d{4}-\d{2}-\d{2}", s)], said[:3]


def test_one_pending_order_is_listed_in_the_singular(domain):
    """'These orders haven't been processed yet: #W4308325 ($428.77).' for one order."""
    one = [{"id": "#W4308325", "total": 428.77}]
    two = [*one, {"id": "#W1000001", "total": 12.5}]
    said_one = {domain.phrasebook.say("reply_order_list", seed, orders=one) for seed in range(200)}
    said_two = {domain.phrasebook.say("reply_order_list", seed, orders=two) for seed in range(200)}
    plural = re.compile(r"\b(?:These orders|orders are|orders haven't)\b")
    assert len(said_one) > 4 and not [s for s in said_one if plural.search(s)], said_one
    assert [s for s in said_two if plural.search(s)] and not [s for s in said_two if "This order" in s or "order is" in s]


def test_a_product_id_refused_as_invalid_is_the_only_way_the_customer_names_the_product(domain):
    """'Is the Portable Bluetooth Speaker, product P10161, available in red, mini?' was answered 'P10161
    doesn't work here ... What's the right product id?': the name alone finds it with search_products."""
    from toolgym.envs import World

    world = World(domain.template(0, "small"))
    try:
        names = [n.lower() for (n,) in world.query("SELECT name FROM product")]
    finally:
        world.close()
    seen = 0
    for task in domain.generate_tasks(60, seed=3, kinds=["no_tool/invalid_value"], size="small"):
        if "product_id" not in task.no_tool.invalid:
            continue
        request = task.scenario.requests[0].lower()
        assert task.no_tool.invalid["product_id"].lower() in request, request
        assert not [n for n in names if n in request], request
        seen += 1
    assert seen >= 2, seen


def test_a_product_name_said_in_plural_takes_no_a_or_an():
    """'The lowest price for an in-stock Polarized Sunglasses is $135.92': an article for one thing
    before a plural name (Sunglasses, Leggings, Jeans)."""
    book = toolgym.load_domain("retail").phrasebook
    for index in range(book.combinations("reply_cheapest")):
        said = book.render("reply_cheapest", index, name="Polarized Sunglasses", options="clear, aviator", price=135.92)
        assert not re.search(r"\ban? (\S+ )?Polarized Sunglasses", said), said


def test_no_customer_excuses_the_length_of_a_short_message(domain):
    """"Hey there! Sorry in advance, I tend to write a lot." opened two short sentences, and "Thank you!
    Sorry for the long message." closed a one-line request: a persona's aside says nothing the
    message it is in belongs to."""
    excuses = re.compile(r"write a lot|long message|ramble", re.IGNORECASE)
    chatty = 0
    for task in domain.generate_tasks(400, seed=17, size="small"):
        for request in task.scenario.requests:
            chatty += register_of(task.scenario.persona) == "chatty"
            if excuses.search(request):
                assert len(request.split()) > 80, request
    assert chatty > 20, "the sample holds chatty customers"
