"""Closing lines fit how the chat ended: they end on their goodbye and thank once, answer thanks as
thanks, and say that nothing was changed only after a request that asked for a change."""

from __future__ import annotations

import re

import pytest

import toolgym
from toolgym.generators.inspection.coherence import Knowledge, doubled_thanks, talk_after_goodbye
from toolgym.generators.rows import with_closer

CLOSERS = ("closer_done", "closer_answered", "closer_refused", "closer_refused_lookup", "closer_off_topic", "closer_declined",
           "closer_pending", "closer_undecided", "farewell")


@pytest.mark.parametrize("intent", CLOSERS)
def test_a_closing_line_ends_on_its_goodbye_and_thanks_once(book, intent):
    for seed in range(400):
        text = book.say(intent, seed, thanked=seed % 2 == 0, pending=["order id"])
        row = {"messages": [{"role": "assistant", "content": text}]}
        assert not talk_after_goodbye(row, Knowledge()), text
        assert not doubled_thanks(row, Knowledge()), text


@pytest.mark.parametrize("intent", ["closer_done", "closer_answered"])
def test_thanks_are_not_answered_good_to_hear(book, intent):
    """"Thank you very much." / "Good to hear." """
    after_thanks = {book.say(intent, seed, thanked=True).split("!")[0].split(".")[0] for seed in range(400)}
    assert not after_thanks & {"Good to hear", "Glad to hear it"}
    after_praise = {book.say(intent, seed, thanked=False).split("!")[0].split(".")[0] for seed in range(400)}
    assert after_praise & {"Good to hear", "Glad to hear it", "Happy to hear that"}
    # "Amazing, you've made my day!" / "Happy that helps.": no one says it
    assert not [a for a in after_praise if a.endswith("that helps")], after_praise


@pytest.mark.parametrize("intent", ["closer_refused", "closer_refused_lookup", "closer_off_topic", "closer_not_found"])
def test_a_regret_ends_on_a_full_stop(book, intent):
    """"I wish I could have done more!" reads as cheer; thanks after a no may still be warm."""
    sentences = [s for seed in range(400) for s in re.split(r"(?<=[.!?]) ", book.say(intent, seed, thanked=False))]
    regrets = [s for s in sentences if re.match(r"(?:I'm )?[Ss]orry|I wish", s)]
    assert regrets and not [s for s in regrets if s.endswith("!")]
    assert intent in ("closer_not_found", "closer_off_topic") or any(s.startswith("Thank") and s.endswith("!") for s in sentences)


def test_a_declined_change_is_not_told_twice_that_nothing_changed(book):
    """"I've left booking FB100404 untouched." / "Good. Thanks." / "That's completely fine, I've left
    everything as it was.": the closer answers the thanks and does not say the no's outcome again."""
    after_thanks = [book.say("closer_declined", seed, thanked=True) for seed in range(300)]
    after_okay = [book.say("closer_declined", seed, thanked=False) for seed in range(300)]
    restated = re.compile(r"\b(?:left|leave|chang(?:e|ed|es)|unchanged|as before|as it was)\b(?! your mind)", re.I)
    assert not [c for c in after_thanks + after_okay if restated.search(c.split(".")[0])]
    assert not [c for c in after_thanks if re.match(r"(?:Understood|Noted|Fair enough|That's (?:completely )?fine|All right)\b", c)]
    assert all(len(re.split(r"(?<=[.!]) ", c)) >= 2 for c in after_thanks)  # and leaves the door open


def test_a_complete_answer_is_not_closed_as_if_more_might_come(book):
    """"That's what I have for now." / "That's what I found at this point." closed answers that were
    whole, as if the records might say more later."""
    closers = [book.say("closer_answered", seed, thanked=seed % 2 == 0) for seed in range(800)]
    hedged = re.compile(r"\b(?:(?<!bye )for now|at this point|right now|so far)\.", re.I)  # "Bye for now." is a goodbye
    assert not [c for c in closers if hedged.search(c)]


@pytest.mark.parametrize("intent", ["closer_answered", "closer_answered@frustrated"])
def test_a_user_who_said_goodbye_is_not_told_the_answer_is_complete(book, intent):
    """"Fine. That's all." / "Understood. Those are all the details." (162 of 1,050 chats): the user has
    just said they are done, so the closing does not tell them their answer is whole."""
    closers = [book.say(intent, seed, thanked=seed % 2 == 0) for seed in range(600)]
    whole = re.compile(r"all the details|full answer|all of it|everything I found|covers what you asked|is covered", re.I)
    assert not [c for c in closers if whole.search(c)]


def test_a_closing_claims_no_struggle_and_thanks_nobody_for_hearing_a_no(book):
    """"Glad we got there." after a one-step chat with nothing in the way (19 chats); "Thanks for hearing
    me out!" after a refusal (20); "I wish I could have done more." to a question outside the domain,
    where nothing was tried (46)."""
    said = {intent: [book.say(intent, seed, thanked=seed % 2 == 0, apologised=seed % 3) for seed in range(400)]
            for intent in ("closer_done", "closer_refused", "closer_refused_lookup", "closer_off_topic")}
    assert not [c for c in said["closer_done"] if "got there" in c]
    assert not [c for cs in said.values() for c in cs if "hearing me out" in c]
    assert not [c for c in said["closer_off_topic"] if re.search(r"done more|do more", c)]


@pytest.mark.parametrize("intent", ["closer_refused", "closer_refused_lookup", "closer_off_topic"])
def test_a_refusal_that_said_sorry_is_not_closed_on_a_second_sorry(book, intent):
    """"I'm sorry, but I can't help with that here." / "Okay." / "I'm sorry I couldn't do more here.":
    the refusal apologised; the closing regrets in other words."""
    after_sorry = [book.say(intent, seed, thanked=False, apologised=1) for seed in range(300)]
    assert not [c for c in after_sorry if re.search(r"\b(sorry|apolog)", c, re.I)]
    assert [c for c in (book.say(intent, seed, thanked=False, apologised=0) for seed in range(300)) if "orry" in c]


@pytest.mark.parametrize("intent", ["closer_done", "closer_answered", "farewell"])
def test_an_okay_is_not_answered_as_thanks(book, intent):
    """"Great." / "You're very welcome!": an answer to thanks where none were given."""
    to_thanks = re.compile(r"^(?:You're (?:very |most )?welcome|My pleasure|Anytime|No problem|It was no trouble|"
                           r"Don't mention it|The pleasure was mine)\b")
    after_okay = [book.say(intent, seed, thanked=False) for seed in range(400)]
    assert not [c for c in after_okay if to_thanks.match(c)]
    assert [c for c in (book.say(intent, seed, thanked=True) for seed in range(400)) if to_thanks.match(c)]


def test_only_a_chat_that_acted_closes_on_done(book):
    said = " ".join(book.say(intent, seed, thanked=False) for intent in ("closer_answered", "farewell") for seed in range(300))
    for claim in ("taken care of", "done on our side", "Glad that's sorted"):
        assert claim not in said


def _closings(domain: str, kind: str) -> list[str]:
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.registry import load_domain
    from toolgym.generators.rows import with_closer

    built = load_domain(domain)
    return [with_closer(task, gold_messages(built, task)[0])[-1]["content"] for task in built.generate_tasks(40, seed=5, kinds=[kind])]


_KEPT = re.compile(r"chang|touched|as it was|as before", re.I)


@pytest.mark.parametrize(("domain", "kind"), [
    ("retail", "no_tool/irrelevant"),
    ("research", "no_tool/unavailable"),  # a missing web search: a look-up
    ("research", "no_tool/policy_refusal"),  # a private address kept back
])
def test_a_request_that_asked_no_change_is_not_told_that_nothing_changed(domain, kind):
    """"Nothing was touched in the meantime." closed "What's the best time of year to visit Oslo?", and
    "Everything stays as it was." a question the missing web search could not answer."""
    said = _closings(domain, kind)
    assert len(said) == 40 and not [c for c in said if _KEPT.search(c)]


def test_a_refused_change_may_still_be_told_that_nothing_changed():
    assert [c for c in _closings("retail", "no_tool/policy_refusal") if _KEPT.search(c)]


def test_what_a_pending_chat_waits_on_is_it_or_them_as_it_is_one_or_several(book):
    """'Please share your check-in and check-out dates. I can't go on without it.' / 'once you find it':
    one label can name several things, and several labels are several."""
    one = " ".join(book.say("closer_pending", seed, thanked=False, pending=["order id"]) for seed in range(300))
    several = " ".join(book.say("closer_pending", seed, thanked=False, pending=["check-in and check-out dates"]) for seed in range(300))
    assert re.search(r"\b(?:have|find|with|found) it\b", one) and not re.search(r"\b(?:have|find|found) them\b", one)
    assert re.search(r"\b(?:have|find|with|found) them\b", several) and not re.search(r"\b(?:have|find|found) it\b", several)
    asks = [book.say("ask_missing", seed, labels=["check-in and check-out dates"]) for seed in range(300)]
    assert not [a for a in asks if re.search(r"without it\b|What is |for it\b|one thing", a)]
    assert any("without them" in a for a in asks) and any("What are" in a for a in asks)


@pytest.mark.parametrize("name", ["workplace", "research"])
def test_a_personal_assistant_closes_as_itself_not_as_a_company(name):
    """"The team is always here for anything else.", "If something else crops up, come back to us.":
    a personal work assistant and a research assistant are an "I", not a service desk."""
    import toolgym

    book = toolgym.load_domain(name).phrasebook
    said = [book.say(intent, seed, thanked=seed % 2 == 0, pending=["file name"]) for intent in CLOSERS for seed in range(200)]
    company = re.compile(r"\bus\b|\bour side\b|The team is|We're (?:always|around|here|just)")
    assert not [s for s in said if company.search(s)]
    assert [s for s in said if re.search(r"I'm (?:always )?(?:here|around)", s)]


@pytest.mark.parametrize("register", ["", "@terse", "@chatty", "@formal", "@frustrated", "@elderly", "@non_native"])
def test_a_user_says_goodbye_in_many_ways_in_every_voice(book, register):
    """Four formal goodbyes ("Thank you, that is all." closed 64 of 1,050 chats) and five chatty ones:
    the agent met a handful of last lines. Every voice has at least nine, each ending the chat."""
    said = {book.say(f"user_done{register}", seed) for seed in range(400)}
    assert len(said) >= 9 and all(s.endswith(" ###STOP###") for s in said), said
    # said after a change as after an answer: none thanks for an explanation a change never had
    assert not [s for s in said if re.search(r"explain", s)], said


def test_a_goodbye_after_dark_wishes_a_good_evening_not_the_rest_of_the_day():
    """'Enjoy the rest of your day' closed drives at 21:45: by the world's clock in the evening, the
    goodbye wishes an evening (and by day, a day)."""
    from toolgym.envs.conversation import in_the_evening
    from toolgym.envs.gold import gold_messages

    day_wish = re.compile(r"great day|rest of your day|lovely day|nice day")
    evening_wish = re.compile(r"good evening|your evening|good night|nice evening")
    seen = {True: [], False: []}
    for name in ("vehicle", "retail"):
        domain = toolgym.load_domain(name)
        for task in domain.generate_tasks(80, seed=2, kinds=["single", "multi_step"], size="small"):
            evening = in_the_evening(task)
            closer = with_closer(task, gold_messages(domain, task)[0])[-1]["content"]
            assert not (day_wish if evening else evening_wish).search(closer), (name, evening, closer)
            seen[evening].append(bool((evening_wish if evening else day_wish).search(closer)))
    assert any(seen[True]) and any(seen[False]), {k: sum(v) for k, v in seen.items()}


def test_an_off_topic_question_is_declined_and_closed_without_a_reason_or_tools_blamed():
    """"Unfortunately, that request is outside my tools." then "Hopefully the reason makes sense.":
    a question outside the domain was given no reason but the service's scope, and no tool is what
    it lacks."""
    from toolgym.envs.gold import gold_messages
    from toolgym.generators.rows import with_closer

    gave_reason = re.compile(r"explanation|the reason|what I said|\btools?\b", re.I)
    closed = 0
    for name in ("travel", "workplace", "telecom", "research"):
        domain = toolgym.load_domain(name)
        for task in domain.generate_tasks(30, seed=7, kinds=["no_tool/irrelevant"], size="small"):
            messages = with_closer(task, gold_messages(domain, task)[0])
            said = [str(m.get("content") or "") for m in messages if m.get("role") == "assistant"]
            assert not [text for text in said if gave_reason.search(text)], said
            closed += len(said) >= 2
    assert closed >= 20, closed


def test_a_fix_the_user_made_on_their_phone_is_not_closed_as_done_on_our_side():
    """'Glad that's sorted! All of it is done on our side.' closed a chat whose only fix was the customer
    turning mobile data on: a closing claims work on the company's side only after a change the agent made."""
    import toolgym
    from toolgym.envs.conversation import closer_intent
    from toolgym.generators.rows import with_closer

    domain = toolgym.load_domain("telecom")
    tasks = [t for t in domain.generate_tasks(200, seed=11, kinds=["multi_step", "single"], size="small") if closer_intent(t) == "closer_done"]
    def wrote(task, caller):
        return any(s.caller == caller and not s.declined and any(domain.tool(c.name).writes for c in s.calls) for s in task.plan)
    phone_only = next(t for t in tasks if wrote(t, "user") and not wrote(t, "agent"))
    by_agent = next(t for t in tasks if wrote(t, "agent"))
    chat = [{"role": "user", "content": "Great, thanks."}]
    said = {task is by_agent: [with_closer(task.model_copy(update={"seed": seed}), chat)[-1]["content"] for seed in range(600)]
            for task in (phone_only, by_agent)}
    assert not [c for c in said[False] if "our side" in c]
    assert [c for c in said[True] if "done on our side" in c]


@pytest.mark.parametrize("intent", ["closer_done", "closer_answered"])
def test_a_user_who_closed_pleased_is_not_told_i_hope_that_helps(book, intent):
    """"Perfect." / "So glad to hear that! I trust that helps." (17% of rows): every user's closing
    line here says it helped, so the closer does not hope it did."""
    said = [book.say(intent, seed, thanked=seed % 2 == 0) for seed in range(400)]
    assert not [s for s in said if re.search(r"\b(I hope|Hopefully|I trust) that\b", s)]


def test_nobody_is_thanked_for_patience_they_were_never_asked_for(book):
    """"Thank you for your patience. I'm all set to cancel FB100717 …" straight after the user's request,
    and "I appreciate your patience." closing a refusal given in the first reply (69 of 600 rows)."""
    waited = re.compile(r"patience|Thanks for waiting|bearing with me")
    for register in ("", "@elderly", "@formal", "@chatty", "@terse"):
        for seed in range(300):
            text = book.say(f"confirm{register}" if book.has(f"confirm{register}") else "confirm", seed,
                            action="cancel FB1", details=seed % 2 == 0)
            assert not waited.search(text), text
    for intent in ("closer_refused", "closer_refused_lookup", "closer_off_topic"):
        assert not [t for t in (book.say(intent, seed, thanked=False) for seed in range(300)) if waited.search(t)]


@pytest.mark.parametrize("intent", ["closer_done", "closer_answered"])
def test_a_frustrated_okay_is_not_answered_with_delight(book, intent):
    """"Fine. That's all." / "So glad to hear that.": a grudging okay is no praise."""
    delight = re.compile(r"^(Great to hear|Wonderful|Excellent|So glad to hear that|Lovely|Glad that works for you|Good to hear|Happy to hear that)")
    said = [book.say(f"{intent}@frustrated", seed, thanked=False) for seed in range(300)]
    assert not [s for s in said if delight.match(s)]
    if intent == "closer_answered":  # a chat that only looked things up has nothing "sorted" (a claim of a change)
        thanked = [book.say(f"{intent}@frustrated", seed, thanked=True) for seed in range(300)]
        assert not [s for s in said + thanked if "sorted" in s]
