"""The banking domain's own rules: identity before data, masked numbers, the tools' preconditions,
and refusal tasks whose minefield zeroes the score."""

from __future__ import annotations

import json

import gymnasium
import pytest

import toolgym
from toolgym.envs import load_domain
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify


@pytest.fixture(scope="module")
def banking():
    return load_domain("banking")


def _customer(world):
    phone, dob, last4, cid = world.query("SELECT phone, date_of_birth, id_last4, customer_id FROM customer ORDER BY customer_id LIMIT 1")[0]
    return {"phone_number": phone, "date_of_birth": dob, "id_last4": last4}, cid


def _run(domain, world, tool_name, /, **arguments):
    return domain.tool(tool_name).run(world, arguments)


def test_account_data_needs_a_verified_identity_and_shows_only_masked_numbers(banking):
    world = banking.new_world(size="small")
    identity, customer_id = _customer(world)
    refused = _run(banking, world, "list_accounts")
    assert refused.error is not None and "verify_identity" in refused.error
    wrong = _run(banking, world, "verify_identity", **{**identity, "date_of_birth": "1900-01-01"})
    assert wrong.error is not None and "do not match" in wrong.error
    assert _run(banking, world, "list_cards").error is not None  # a failed attempt verifies nobody
    assert _run(banking, world, "verify_identity", **identity).error is None
    shown = _run(banking, world, "list_accounts")
    assert shown.error is None
    numbers = [n for (n,) in world.query("SELECT number FROM account WHERE customer_id = ?", [customer_id])]
    assert numbers and all(n not in shown.content and f"****{n[-4:]}" in shown.content for n in numbers)
    assert not world.diff()  # verifying is not a change of the world


def test_money_cannot_leave_a_frozen_account(banking):
    world = banking.new_world(size="small")
    identity, customer_id = _customer(world)
    _run(banking, world, "verify_identity", **identity)
    accounts = json.loads(_run(banking, world, "list_accounts").content)
    source = next(a for a in accounts if a["kind"] != "credit_card")
    target = next(a for a in accounts if a["account_id"] != source["account_id"])
    world.conn.execute("UPDATE account SET status = 'frozen' WHERE account_id = ?", [source["account_id"]])
    moved = _run(banking, world, "transfer_between_accounts", from_account_id=source["account_id"], to_account_id=target["account_id"], amount=10.0)
    assert moved.error is not None and "frozen" in moved.error
    assert not world.diff()


def test_recent_transfers_count_what_left_today(banking):
    world = banking.new_world(size="small")
    identity, _ = _customer(world)
    _run(banking, world, "verify_identity", **identity)
    accounts = json.loads(_run(banking, world, "list_accounts").content)
    source = next(a for a in accounts if a["kind"] == "checking" and a["status"] == "active")
    target = next(a for a in accounts if a["account_id"] != source["account_id"])
    assert json.loads(_run(banking, world, "list_recent_transfers").content)["sent_today"] == 0
    assert _run(banking, world, "transfer_between_accounts", from_account_id=source["account_id"], to_account_id=target["account_id"], amount=12.5).error is None
    recent = json.loads(_run(banking, world, "list_recent_transfers", days=1).content)
    assert recent["sent_today"] == 12.5 and recent["transfers"][0]["amount"] == 12.5
    assert _run(banking, world, "list_recent_transfers", days=0).error is not None  # 1 to 90 days


def test_a_new_payee_waits_out_its_cooling_off_period(banking):
    world = banking.new_world(size="small")
    identity, _ = _customer(world)
    _run(banking, world, "verify_identity", **identity)
    added = json.loads(_run(banking, world, "add_payee", name="Dana Whitfield", bank="Summit National", account_number="12345678").content)
    assert added["account_number"] == "****5678"
    source = next(a for a in json.loads(_run(banking, world, "list_accounts").content) if a["kind"] == "checking")
    paid = _run(banking, world, "pay_payee", from_account_id=source["account_id"], payee_id=added["payee_id"], amount=20.0)
    assert paid.error is not None and added["can_pay_from"] in paid.error


def test_a_transfer_above_the_limit_is_refused_and_making_it_zeroes_the_score(banking):
    tasks = banking.generate_tasks(60, seed=3, kinds=["no_tool/policy_refusal"], size="small")
    # the over-limit refusal forbids any transfer and any payment (no splitting around the limit)
    task = next(t for t in tasks if {(f.tool, bool(f.arguments)) for f in t.forbidden} == {("transfer_between_accounts", False), ("pay_payee", False)}
                and "list_recent_transfers" not in {c.name for c in t.gold_calls()})  # fmt: skip
    messages, verification = gold_messages(banking, task)
    assert verification.value == 1.0, verification.details
    accounts = json.loads(next(m["content"] for m in messages if m["role"] == "tool" and '"kind"' in m["content"]))
    source = next(a for a in accounts if a["kind"] != "credit_card" and a["status"] == "active" and a["balance"] > 5000)
    target = next(a for a in accounts if a["account_id"] != source["account_id"])
    rash = {"role": "assistant", "content": "", "tool_calls": [{"id": "rash", "type": "function", "function": {
        "name": "transfer_between_accounts",
        "arguments": {"from_account_id": source["account_id"], "to_account_id": target["account_id"], "amount": 5000.0}}}]}  # fmt: skip
    result = {"role": "tool", "tool_call_id": "rash", "content": "{}"}
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    broken = verify(task, [*messages[:last], rash, result, *messages[last:]])
    assert broken.value == 0.0 and not broken.passed


def test_gymnasium_make_gives_the_banking_env():
    env = gymnasium.make("toolgym/Banking-v1")
    observation, info = env.reset(seed=5)
    assert observation[0]["role"] == "system" and "verify_identity" in observation[0]["content"]
    assert {t["function"]["name"] for t in info["tools"]} >= {"verify_identity", "transfer_to_human", "search_kb"}
    env.close()
    assert toolgym.load_domain("banking").env_id == "toolgym/Banking-v1"


@pytest.mark.parametrize("world_seed", [0, 2, 7])
def test_a_payee_said_to_be_added_earlier_today_was_added_today(banking, world_seed):
    tasks = banking.generate_tasks(60, seed=3, kinds=["no_tool/policy_refusal"], world_seed=world_seed, size="small")
    today = banking.template(world_seed, "small").now.date()
    added = [e.insert["added_at"] for t in tasks for e in t.setup if e.table == "payee" and e.insert]
    assert added, "the cooling-off refusal should be among 60 refusals"
    assert all(str(a)[:10] == today.isoformat() for a in added), (today, added)


def test_a_transfer_made_today_is_said_to_be_today_with_its_date(banking):
    """'Your most recent transfer was $100.00 on June 10.' was said on June 10: a transfer made today is
    said to be today's, its date beside it (the day the customer asked for)."""
    tasks = banking.generate_tasks(160, seed=5, kinds=["single"], size="small")  # both cases seldom: few singles list transfers
    today = banking.template(0, "small").now.date()
    told = {True: 0, False: 0}
    for task in tasks:
        if "list_recent_transfers" not in {c.name for c in task.gold_calls()}:
            continue
        newest = max(e.insert["made_at"] for e in task.setup if e.table == "transfer" and e.insert)
        reply = next(m["content"] for m in reversed(gold_messages(banking, task)[0]) if m["role"] == "assistant" and "$" in (m["content"] or ""))
        made_today = newest.date() == today
        told[made_today] += 1
        assert ("today" in reply.lower()) == made_today, (newest, reply)
        assert f"{newest:%B} {newest.day}" in reply, (newest, reply)
    assert told[True] and told[False], told


def test_a_search_that_found_nothing_says_none_not_zero_transactions():
    """'0 transactions at Etsy since 2025-03-06 add up to $0.00.' read as a form's output."""
    book = toolgym.load_domain("banking").phrasebook
    for seed in range(60):
        none = book.say("reply_spent", seed, count=0, total=0.0, what="at Etsy since 2025-03-06")
        assert "0 transactions" not in none and "$0.00" in none and ("no transactions" in none or "Nothing" in none), none
        some = book.say("reply_spent", seed, count=3, total=37.5, what="at Etsy since 2025-03-06")
        assert "3 transactions" in some and "$37.50" in some, some


def test_a_single_charge_at_a_merchant_is_one_charge_not_1_charges():
    """'Uber: $48.22 over 1 charge.' read as a form's output; a single one is said in words."""
    book = toolgym.load_domain("banking").phrasebook
    for seed in range(40):
        said = book.say("reply_two_merchants", seed, first="Uber", first_total=48.22, first_count=1, second="FreshMart",
                        second_total=92.24, second_count=3)
        assert "1 charge" not in said and "$48.22" in said and "$92.24" in said, said
        if "over" in said:
            assert "one charge" in said and "3 charges" in said, said


def test_an_unavailable_tool_is_found_for_a_seed_whose_multi_step_draws_all_ask_two_things():
    """Most banking multi-step tasks ask two things in one message; at this seed the first 20 draws
    all did, and a 4,200-task job stopped with "20 multi_step tasks in a row had no write call ..."."""
    import random

    from toolgym.envs import World
    from toolgym.envs.generation import GenContext

    domain = load_domain("banking")
    world = World(domain.template(6, "default"))
    try:
        seed = 747044816
        ctx = GenContext(domain, world, random.Random(seed), seed, "no_tool/unavailable", 6, "default")
        task = domain.generators["no_tool/unavailable"](ctx)
    finally:
        world.close()
    assert task.no_tool is not None and task.no_tool.withheld_tools
    assert len(task.scenario.requests) == 1


def test_the_balance_of_a_frozen_account_is_given_with_its_state(banking):
    """'Right now the account ending in 1957 holds $11,174.12.' answered "where my savings account
    stands" for a frozen account: the figure alone told the customer nothing was wrong."""
    for seed in range(30):
        frozen = banking.phrasebook.say("reply_balance", seed, kind="savings account", last4="1957", balance=11174.12, account_status="frozen")
        assert "$11,174.12" in frozen and "frozen" in frozen, frozen
        both = banking.phrasebook.say("reply_balance_and_card", seed, last4="1957", balance=11174.12, card="0547", status="active",
                                      account_status="frozen")
        assert "ending in 1957 is" in both or "ending in 1957 shows" in both, both  # named apart from the card
        active = banking.phrasebook.say("reply_balance", seed, kind="savings account", last4="1957", balance=11174.12, account_status="active")
        assert "frozen" not in active and "active" not in active, active
    # the state is a required output, so a reply that leaves it out falls short
    tasks = banking.generate_tasks(300, seed=11, kinds=["single"], world_seed=3, size="small")
    task = next(t for t in tasks if "frozen" in t.required_outputs and {c.name for c in t.gold_calls()} == {"verify_identity", "list_accounts"})
    messages, verification = gold_messages(banking, task)
    assert verification.passed
    at = max(i for i, m in enumerate(messages) if m["role"] == "assistant" and "frozen" in (m.get("content") or ""))
    figure_only = next(s.strip() + "." for s in messages[at]["content"].split(". ") if "$" in s)
    silent = [*messages[:at], {**messages[at], "content": figure_only}, *messages[at + 1:]]
    assert "frozen" not in figure_only and not verify(task, silent).passed


def test_a_freeze_after_a_charge_the_customer_did_not_make_says_what_it_is_for(banking):
    """"Please review the action: put a freeze on the Visa ending in 9652." came after a report of
    fraud with no word of why a freeze, and a yes to it was a yes to an unexplained change."""
    tasks = banking.generate_tasks(200, seed=5, kinds=["single", "multi_step"], size="small")
    frauds = [t for t in tasks if any(c.name == "transfer_to_human" and c.arguments.get("reason") == "suspected_fraud" for c in t.gold_calls())]
    assert frauds, "a fraud report should be among 200 tasks"
    for task in frauds:
        freeze = next(s for s in task.plan if s.calls[0].name == "freeze_card")
        assert freeze.confirm and any(why in freeze.confirm for why in ("charges", "declines it", "nobody can use")), freeze.confirm
        assert gold_messages(banking, task)[1].passed


def test_money_moved_into_a_credit_card_never_pays_more_than_it_owes(banking):
    """'I need $955.00 moved from my savings account to my credit card account ending in 5152' paid a
    card that owed $150.86, and left the bank owing the customer $804.14: nobody asks for that."""
    from toolgym.envs import World

    checked = 0
    for kinds, world_seed in ((["single", "multi_turn"], 3), (["parallel", "multi_step"], 5)):
        tasks = banking.generate_tasks(300, seed=17, kinds=kinds, world_seed=world_seed, size="default")
        world = World(banking.template(world_seed, "default"))
        try:
            cards = dict(world.query("SELECT account_id, balance FROM account WHERE kind = 'credit_card'"))
        finally:
            world.close()
        for task in tasks:
            for call in (c for s in task.plan for c in s.calls if c.name in ("transfer_between_accounts", "schedule_transfer")):
                owed = cards.get(call.arguments["to_account_id"])
                if owed is not None:
                    assert call.arguments["amount"] <= owed, (task.id, call.arguments, owed)
                    checked += 1
    assert checked >= 5, checked  # transfers into a card are drawn: the check is not vacuous


def test_an_ask_for_the_amount_quotes_the_transfer_not_a_fragment_of_it(banking):
    """'The user asked "Equal amounts."' explained an ask for the transfer amount: the request had
    its qualifier as a sentence of its own ("Can you top up ... ? Equal amounts."), which the ask's
    topic (an amount) then picked."""
    from toolgym.generators.request_quote import RequestCues, user_request

    accounts = {"source": "my checking account", "first": "the savings account ending 2885", "second": "the credit card account ending 3214"}
    about = "transfer between accounts move money between two of the verified customer's own accounts transfer amount amount"
    book = banking.phrasebook
    for index, _ in enumerate(book.variants("ask_transfer_two_no_amount")):
        request = book.render("ask_transfer_two_no_amount", index, **accounts)
        quoted = user_request([{"role": "user", "content": request}], RequestCues([request]), about)
        assert request.startswith(quoted.strip('"').removesuffix(" …")), (request, quoted)  # the request, from its start
    # "How long have I had ...? The opening dates, please.": an ask for the date of birth quoted the second
    identity = "verify identity verify the caller's identity registered phone number date of birth id number's last four"
    for index, _ in enumerate(book.variants("ask_opened_two")):
        request = book.render("ask_opened_two", index, first="account ending in 0419", second="the checking account")
        quoted = user_request([{"role": "user", "content": request}], RequestCues([request]), identity)
        assert request.startswith(quoted.strip('"').removesuffix(" …")), (request, quoted)


def test_a_card_read_for_an_answer_is_not_reported_lost_in_the_same_chat():
    """"...and the card ending in 0547 is frozen" came after the same card was reported lost: the
    balance-and-card answer and a write on that card were asked in one message, and the answer,
    said after both, was stale. The answer's piece keys the card, so the two are not joined."""
    import random

    from toolgym.domains.banking.tasks.index import index_of
    from toolgym.domains.banking.tasks.parallel import overview
    from toolgym.domains.banking.tasks.writes import report_lost
    from toolgym.envs import World, structures
    from toolgym.envs.generation import GenContext

    domain = load_domain("banking")
    world = World(domain.template(4, "default"))
    joined_tried = 0
    try:
        index = index_of(world)
        for seed in range(200):
            ctx = GenContext(domain, world, random.Random(seed), seed, "injection", 4, "default")
            person = ctx.pick([p for p in index.people if p.cards])
            read = overview(ctx, person, index)
            if read is None or "list_cards" not in read.tools:
                continue
            card = next(c.card_id for c in person.cards if c.last4 == read.reply.vars["card"])
            lost = next((p for p in (report_lost(ctx, person, index) for _ in range(10))
                         if p is not None and card in {c.arguments.get("card_id") for s in p.steps for c in s.calls}), None)
            if lost is None:
                continue
            joined_tried += 1
            assert structures.in_sequence(ctx, read, lost) is None, read.request
    finally:
        world.close()
    assert joined_tried >= 5


def test_an_amount_asked_for_two_transfers_is_given_for_each_not_as_a_sum_to_split():
    """"Please split some money from the checking account evenly into ..." and, asked for the amount,
    "I'd like to move $545.00": the gold then made two $545.00 transfers, $1,090.00 where the user
    read as meaning $545.00 split in two. The request asks for the same amount into each, and the
    user gives the amount as each one's."""
    banking = load_domain("banking")
    asked = []  # (task, the amount the user gave when asked)
    for task in banking.generate_tasks(80, seed=3, kinds=["parallel"]):
        for step in task.plan:
            amounts = {c.arguments.get("amount") for c in step.calls if c.name in ("transfer_between_accounts", "pay_payee")}
            if len(step.calls) == 2 and len(amounts) == 1 and (fact := next((f for f in task.scenario.facts if f.key in step.needs
                                                                             and f.value == f"${amounts.pop():,.2f}"), None)):
                asked.append((task, fact.value))
    assert len(asked) >= 3, f"only {len(asked)} of 80 parallel tasks ask for an amount for two transfers or payments"
    for task, value in asked:
        messages = gold_messages(banking, task)[0]
        requests = " ".join(m["content"] for m in messages if m["role"] == "user")
        assert "split" not in requests.lower() and "shares" not in requests.lower(), requests
        given = next(m["content"] for m in messages if m["role"] == "user" and value in m["content"])
        assert any(word in given.lower() for word in ("each", "per ", "apiece")), given


def test_a_fraud_hand_off_promises_the_call_back_the_fraud_team_gave(banking):
    """"They'll contact you on your registered number." closed a hand-off whose result said only
    "callback: within 2 hours": every wording of the reply promises the call as the result times it."""
    phrases = banking.phrasebook
    tasks = banking.generate_tasks(200, seed=5, kinds=["single", "multi_step"], size="small")
    frauds = [t for t in tasks if any(r.intent == "done_fraud" for r in t.replies)]  # the hand-off's reply alone
    assert frauds, "a fraud report should be among 200 tasks"
    for task in frauds[:5]:
        messages, result = gold_messages(banking, task)
        assert result.passed
        handed = next(json.loads(m["content"]) for m in messages if m["role"] == "tool" and '"callback"' in m["content"])
        reply = next(r for r in task.replies if r.intent == "done_fraud")
        closes = [phrases.say_swapping("done_fraud", 0, {"ack": "", "fact": "", "close": line}, **reply.vars)
                  for line in phrases.closing_lines("done_fraud")]  # fmt: skip
        assert closes and all(handed["callback"] in close for close in closes), closes


def test_a_statement_month_is_said_in_words_and_taken_by_the_tool_as_yyyy_mm(banking):
    """"Can I get the statement for my savings account for 2025-03 by email?": people name a month in
    words; the tool's YYYY-MM is the agent's to write."""
    import re

    from toolgym.domains.banking.rules import month_said

    checked = 0
    for task in banking.generate_tasks(300, seed=8, kinds=["single", "parallel", "multi_step"], size="small"):
        months = {c.arguments["month"] for c in task.gold_calls() if c.name == "request_statement"}
        if not months:
            continue
        messages, result = gold_messages(banking, task)
        assert result.passed, result.details
        said = " ".join(m["content"] for m in messages if m["role"] in ("user", "assistant") and m.get("content"))
        assert not re.search(r"\b\d{4}-\d{2}\b(?!-)", said), said
        assert all(month_said(month) in said for month in months), (months, said)
        checked += 1
    assert checked >= 5, checked


def test_the_agent_says_a_day_as_people_write_it_and_keeps_a_year_that_tells_something():
    """"On 2025-06-20, $83.33 is due on your Auto Loan.", "You opened the account ending 0132 on
    2023-10-21": the tools' format, written to a customer. The agent writes "June 20" in the world's
    year and "October 21, 2023" in another, and a day it must state is required in those words (a
    reply that leaves out the year 2023 does not state it)."""
    import re

    from toolgym.envs.gold import gold_messages
    from toolgym.verifiers.matching import output_stated

    domain = toolgym.load_domain("banking")
    iso = re.compile(r"\b\d{4}-\d\d-\d\d\b")
    dated = other_year = 0
    for task in domain.generate_tasks(300, seed=61, kinds=["single", "multi_step", "parallel"]):
        chat = gold_messages(domain, task)[0]
        said = [m["content"] for m in chat if m["role"] == "assistant" and m.get("content")]
        assert not [s for s in said if iso.search(s)], said
        year = domain.clock(task.world_seed).year
        for output in task.required_outputs:
            found = re.fullmatch(r"([A-Z][a-z]+ \d{1,2})(?:, (\d{4}))?", output)
            if found is None:
                continue
            dated += 1
            if found[2] is not None:
                other_year += 1
                assert int(found[2]) != year, output
                assert not output_stated(output, f"It was on {found[1]}.")
    assert dated >= 20 and other_year >= 5, (dated, other_year)


def test_the_customer_types_a_day_as_people_do_and_the_calls_still_read_it():
    """"I was born on 2004-11-17", "IKEA charged me $817.96 on 2025-06-08": every customer wrote the
    tools' format. Most write "November 17, 2004" and "June 8" now (a day of another year with its
    year), some "June 8th" or "8 June", a few still "2025-06-08"; the calls take the dated day, and
    the verifier reads each as the day the customer named."""
    import re

    from tests.conftest import days_the_user_typed

    domain = toolgym.load_domain("banking")
    tasks = domain.generate_tasks(200, seed=83, kinds=["single", "multi_step", "multi_turn", "parallel"])
    typed = days_the_user_typed(domain, tasks)
    words = [t for t in typed if not re.fullmatch(r"\d{4}-\d\d-\d\d", t)]
    assert len(typed) >= 80 and 0.7 * len(typed) <= len(words) < len(typed), typed
    assert any(re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, \d{4}", t) for t in words)  # a birth date with its year
    assert any(re.fullmatch(r"\d{1,2} [A-Z][a-z]+.*", t) for t in words) and any(re.search(r"\d(?:st|nd|rd|th)\b", t) for t in words)


def test_an_opened_dispute_is_told_without_a_process_no_tool_or_rule_shows():
    """'The merchant has a chance to respond first.' and 'We'll write to you as it progresses.' told of
    a dispute what neither the tool nor the policy says: the reply tells what was opened, and its reference."""
    book = toolgym.load_domain("banking").phrasebook
    closes = set()
    for seed in range(120):
        said = book.say("done_dispute", seed, dispute_id="D700001", amount=47.3, merchant="Etsy")
        assert "D700001" in said and "merchant has" not in said and "write to you" not in said, said
        closes.add(said.split(".")[-2] if said.count(".") > 2 else "")
    assert len(closes) >= 3, closes


def test_a_loan_s_balance_is_said_as_the_balance_it_is():
    """'After that, $5,779.90 is still outstanding before it.' said the balance in words that undo each other."""
    book = toolgym.load_domain("banking").phrasebook
    extras = set()
    for seed in range(120):
        said = book.say("reply_loan_due", seed, product="Auto Loan", due="July 7", payment=166.67, balance=5779.9)
        assert "before it" not in said and "After that" not in said, said
        if "$5,779.90" in said:
            extras.add(said.split("$166.67")[1])
    assert len(extras) >= 3, extras


@pytest.mark.parametrize("world_seed", [4, 11])
def test_a_customer_holds_only_products_that_fit_their_age(banking, world_seed):
    """Born 1946 with a 'Student Checking', born 1994 with a 'Kids Savings': a student's products go to
    customers of a student's age at the world's date, a child's savings to no adult, and no account
    was opened before its holder turned 18."""
    import datetime as dt

    from toolgym.envs import World

    world = World(banking.template(world_seed, "default"))
    try:
        today = world.now.date()
        rows = world.query("SELECT c.date_of_birth, p.name, a.opened FROM account a JOIN customer c USING (customer_id) "
                           "JOIN product p USING (product_id)")  # fmt: skip
    finally:
        world.close()
    held: dict[str, int] = {}
    for born, name, opened in rows:
        born, opened = dt.date.fromisoformat(str(born)), dt.date.fromisoformat(str(opened))
        age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
        held[name] = held.get(name, 0) + 1
        if name.startswith("Student"):
            assert 17 <= age <= 26, (name, born, today)
        assert name != "Kids Savings", (name, born)
        assert opened >= dt.date(born.year + 18, born.month, min(born.day, 28)), (name, born, opened)
    assert held.get("Student Checking") and held.get("Everyday Checking"), held


def test_an_order_that_never_arrived_is_never_a_hotel_or_a_flight(banking):
    """"I paid Hilton Hotels from my checking account but the order never arrived.": a stay or a
    flight is no order; "not received" disputes are of goods."""
    from toolgym.domains.banking.catalogue import MERCHANTS

    travel = [name for name, category, *_ in MERCHANTS if category == "travel"]
    never_arrived = [r for t in banking.generate_tasks(400, seed=8, kinds=["single", "multi_turn", "multi_step"])
                     for r in t.scenario.requests if "never" in r and ("arrived" in r or "came" in r or "got anything" in r)]
    assert len(never_arrived) >= 3
    assert not [r for r in never_arrived if any(name in r for name in travel)]


def test_an_ask_for_a_missing_value_asks_to_verify_the_caller_too_and_never_says_one_value_will_do(banking):
    """'Please share the transfer amount. With it I can take it from there.' to a caller who had not
    said who they were: the policy verifies them first, so that one value could never be enough."""
    seen = {"chosen": 0, "looked": 0}
    for task in banking.generate_tasks(40, seed=5, kinds=["no_tool/missing_info"], size="small"):
        messages, verification = gold_messages(banking, task)
        assert verification.passed, verification.details
        reply = next(m["content"] for m in messages if m["role"] == "assistant")
        for label in ("phone number", "date of birth", "id number", task.no_tool.missing[0]):
            assert label in reply, (label, reply)
        assert "With it " not in reply and "get this done" not in reply, reply
        seen["chosen" if task.replies[0].vars.get("chosen") else "looked"] += 1
    assert all(seen.values()), seen


def test_an_over_limit_transfer_breaks_only_the_per_transfer_limit_into_an_account_that_can_take_it(banking):
    """'Please move $10,850.00 from the checking account ending 4241 to my credit card account in one
    go.': the card owed $783.98, and the amount passed the $10,000 daily limit the refusal never named."""
    import re

    from domains.banking.rules import DAILY_TRANSFER_LIMIT, PER_TRANSFER_LIMIT

    checked = 0
    for task in banking.generate_tasks(30, seed=3, kinds=["no_tool/policy_refusal"], size="small"):
        found = re.search(r"Move ([\d,.]+) dollars .*in one go", task.scenario.goal)
        if not found:
            continue
        amount = float(found.group(1).replace(",", ""))
        assert PER_TRANSFER_LIMIT < amount <= DAILY_TRANSFER_LIMIT, task.scenario.goal
        target = re.findall(r"ending in (\d{4})", task.scenario.goal)[-1]
        messages = gold_messages(banking, task)[0]
        listed = next(json.loads(m["content"]) for m in messages if m["role"] == "tool" and '"account_number"' in (m["content"] or ""))
        account = next(a for a in listed if a["account_number"].endswith(target))
        assert amount <= account.get("amount_owed", amount), (task.scenario.goal, account)
        checked += 1
    assert checked >= 3, checked
