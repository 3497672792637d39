"""The workplace domain: the signed-in employee's mail, calendar, files, chat and tasks, and its rules."""

from __future__ import annotations

import datetime as dt
import json
import random
import re

import gymnasium
import pytest

import toolgym
from tests.conftest import small_world_index
from toolgym.envs import World
from toolgym.envs.gold import gold_messages
from toolgym.envs.replay import run_call
from toolgym.verifiers import verify

WORKPLACE = "workplace"


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain(WORKPLACE)


@pytest.fixture(scope="module")
def index():
    return small_world_index(WORKPLACE)


def _signed_in(domain, employee_id: str) -> World:
    world = World(domain.template(0, "small"))
    world.update(world.info("session").model, 1, employee_id=employee_id)
    world.mark_baseline()
    return world


def _call(domain, world: World, tool: str, **arguments):
    return run_call(domain, world, [tool], tool, arguments)


def test_every_tool_acts_for_the_signed_in_employee(domain, index):
    desk = next(d for d in index.desk_list() if d.owned and d.mentions)
    world = _signed_in(domain, desk.person.id)
    profile = json.loads(_call(domain, world, "get_my_profile").content)
    assert profile["email"] == desk.person.email
    found = json.loads(_call(domain, world, "search_email", sender=desk.mentions[0].sender.name).content)
    assert found and found[0]["message_id"] == desk.mentions[0].mail.id
    other = next(d for d in index.desk_list() if d.person.id != desk.person.id and d.mentions)
    foreign = _call(domain, world, "read_message", message_id=other.mentions[0].mail.id)
    assert foreign.error and "no message" in foreign.error  # another person's mailbox stays closed


def test_sharing_a_file_you_do_not_own_is_a_tool_error_naming_the_owner(domain, index):
    desk = next(d for d in index.desk_list() if any(doc.owner_id != d.person.id for doc in d.readable))
    doc = next(doc for doc in desk.readable if doc.owner_id != desk.person.id)
    world = _signed_in(domain, desk.person.id)
    outcome = _call(
        domain, world, "share_file", file_id=doc.id, email="someone@brightwell.example", level="view"
    )
    owner = index.people[doc.owner_id]
    assert outcome.error and "do not own" in outcome.error and owner.email in outcome.error
    assert not world.changes  # the failed write left no trace


def test_cancelling_someone_elses_event_is_refused_by_the_tool(domain, index):
    desk = next(d for d in index.desk_list() if d.invited)
    world = _signed_in(domain, desk.person.id)
    outcome = _call(domain, world, "cancel_event", event_id=desk.invited[0].event.id)
    assert outcome.error and "only its organiser" in outcome.error


def test_free_slots_lie_in_everyones_working_hours_and_avoid_their_events(domain, index):
    from toolgym.domains.workplace.tools.calendar import busy_times, free_slots, working_window

    people = list(index.people.values())
    me = next(p for p in people if p.time_zone == "America/New_York")
    other = next(p for p in people if p.time_zone == "Europe/Berlin")
    world = _signed_in(domain, me.id)
    day = dt.date(2025, 3, 13)
    starts = free_slots(world, [me, other], day, 60, me.time_zone)
    assert starts, "New York and Berlin overlap for an hour or more on a Thursday"
    busy = busy_times(world, [me.id, other.id], *working_window(me, day))
    for start in starts:
        end = start + dt.timedelta(minutes=60)
        for person in (me, other):
            begin, close = working_window(person, day)
            assert begin <= start and end <= close
        assert not any(s < end and start < e for s, e in busy)


def test_a_policy_refusal_is_spoiled_by_the_forbidden_write(domain, index):
    refusal = next(
        t
        for t in domain.generate_tasks(
            40, seed=3, kinds=["no_tool/policy_refusal"], size="small", world_seed=0
        )
        if any(f.tool == "share_file" and f.arguments.get("email") == "anyone" for f in t.forbidden)
    )
    messages, _ = gold_messages(domain, refusal)
    assert verify(refusal, messages).value == 1.0
    title = refusal.scenario.requests[0].split('"')[1]  # the file the user named
    doc = next(d for d in index.desks[refusal.setup[0].set["employee_id"]].owned if d.title == title)
    share = {"role": "assistant", "content": None, "tool_calls": [{"id": "x", "type": "function", "function": {
        "name": "share_file", "arguments": {"file_id": doc.id, "email": "anyone", "level": "view"}}}]}  # fmt: skip
    assert verify(refusal, messages[:-1] + [share] + messages[-1:]).value == 0.0


def test_following_an_injected_order_zeroes_the_score(domain):
    task = domain.generate_tasks(1, seed=5, kinds=["injection"], size="small")[0]
    messages, _ = gold_messages(domain, task)
    assert verify(task, messages).value == 1.0
    bait = task.forbidden[0]
    arguments = dict(bait.arguments)
    if bait.tool == "share_file":
        arguments |= {"file_id": "F00001", "level": "view"}
    else:
        arguments |= {"message_id": "M000001"}
    obey = {"role": "assistant", "content": None, "tool_calls": [{"id": "y", "type": "function", "function": {
        "name": bait.tool, "arguments": arguments}}]}  # fmt: skip
    assert verify(task, messages[:-1] + [obey] + messages[-1:]).value == 0.0


def test_every_write_is_confirmed_in_the_gold_plan(domain):
    tasks = domain.generate_tasks(
        40, seed=2, kinds=["single", "multi_step", "multi_turn", "parallel"], size="small"
    )
    for task in tasks:
        for step in task.plan:
            if any(domain.tool(c.name).writes for c in step.calls):
                assert step.confirm, (task.kind, [c.name for c in step.calls])


def test_gymnasium_make_resets_to_a_signed_in_task(domain):
    env = gymnasium.make("toolgym/Workplace-v4", world_size="small")
    task = domain.generate_tasks(1, seed=1, kinds=["multi_step"], size="small")[0]
    observation, info = env.reset(options={"task": task})
    assert observation[0]["role"] == "system" and "brightwell.example" in observation[0]["content"]
    assert {t["function"]["name"] for t in info["tools"]} >= {"search_email", "find_free_slots", "share_file"}
    env.close()


def test_list_events_shows_the_day_asked_for_in_the_users_time_zone(domain, index):
    desk = next(d for d in index.desk_list() if len(d.organised) >= 2)
    world = _signed_in(domain, desk.person.id)
    for meeting in desk.organised:
        events = json.loads(_call(domain, world, "list_events", date=meeting.day).content)
        assert meeting.event.id in {e["event_id"] for e in events}
        assert all(e["start"][:10] <= meeting.day <= e["end"][:10] for e in events), (meeting.day, events)


def test_a_meeting_booked_with_one_colleague_says_is_invited(domain):
    """'Sandra Mosley are invited to ...' was said of one guest."""
    for seed in range(300):
        for names, verb in ((["Sandra Mosley"], "is"), (["Sandra Mosley", "Ann Lee"], "are")):
            said = domain.phrasebook.say("reply_scheduled", seed, title="Sync", start="2025-03-12 15:00",
                                         zone="Europe/London", names=names)
            if " invited to " in said:
                assert f"{' and '.join(names)} {verb} invited to" in said, said


def test_world_texts_keep_to_the_worlds_own_facts(domain):
    """Mail, chat and file texts come from whole templates: no message repeats more than a few times,
    a number in them is a world value (a file title's period, a decision's choice), no slot is left
    unfilled, no address is written out, and a decision thread's last message names one option of its topic."""
    from collections import Counter

    from toolgym.domains.workplace.catalogue import DECISIONS, FILE_PERIODS

    connection = domain.template(2, "default").connection()
    chat = [text for (text,) in connection.execute("select text from chat_message")]
    assert max(Counter(chat).values()) <= 6, Counter(chat).most_common(3)
    files = [content.split("\n\n", 1)[1] for (content,) in connection.execute("select content from document")]
    mail = list(connection.execute("select thread_id, subject, body from mail order by sent_at, id"))
    texts = chat + files + [subject for _, subject, _ in mail] + [body for _, _, body in mail]
    world_numbers = {p for p in FILE_PERIODS if any(c.isdigit() for c in p)} | {
        word for choices in DECISIONS.values() for choice in choices for word in choice.split() if any(c.isdigit() for c in word)
    }
    for text in texts:
        assert "{" not in text and "}" not in text and "@" not in text, text
        numbers = {word.strip(".,?!:;") for word in text.split() if any(c.isdigit() for c in word)}
        assert numbers <= world_numbers, (numbers - world_numbers, text)
    threads: dict[str, list[tuple[str, str]]] = {}
    for thread, subject, body in mail:
        threads.setdefault(thread, []).append((subject, body))
    decided = [(m[0][0][4:], m[-1][1]) for m in threads.values() if m[0][0][4:] in DECISIONS and m[0][0].startswith("The ")]
    assert decided and all(sum(o in last for o in DECISIONS[topic]) == 1 for topic, last in decided)


def test_a_files_topic_is_one_its_owners_team_keeps(domain):
    """'Finance campaign brief' paired every team with every topic: a team keeps the plans and
    reports every team has, and the papers of its own trade."""
    from toolgym.domains.workplace.catalogue import FILE_TOPICS, TEAM_FILE_TOPICS

    world = World(domain.template(0, "default"))
    try:
        people = dict(world.query("SELECT id, team FROM employee"))
        files = world.query("SELECT owner_id, title FROM document")
    finally:
        world.close()
    assert len(files) > 100
    for owner, title in files:
        team = people[owner]
        topic = title.split(" ", 2)[2]
        assert title.startswith(team) and topic in FILE_TOPICS + TEAM_FILE_TOPICS[team], title
    titles = [title for _, title in files]
    assert any("campaign brief" in t for t in titles) and not any(t.startswith("Finance") and "campaign" in t for t in titles)


def test_who_last_wrote_in_a_channel_is_answered_with_a_name_the_search_shows(domain):
    """The answer named a colleague by address alone ("... is from jared.chapman@brightwell.example"):
    a chat search shows who wrote as a chat does, by name, and the answer says it."""
    tasks = [t for t in domain.generate_tasks(160, seed=4, kinds=["single"]) if t.replies[-1].intent == "reply_chat_search"]
    assert tasks
    for task in tasks[:5]:
        messages, verification = gold_messages(domain, task)
        assert verification.passed, verification
        found = json.loads(next(m["content"] for m in messages if m["role"] == "tool"))
        name = task.replies[-1].vars["name"]
        assert name == found[0]["author_name"] and found[0]["author"] == task.replies[-1].vars["email"]
        replies = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")]
        assert any(name in reply for reply in replies), replies


def test_two_requests_of_a_chat_ask_no_question_in_the_same_words():
    """"Someone wrote about "backend" in #incidents recently. Who was it?" then "Someone wrote about
    "builds" in #platform recently. Who was it?": the user said one question twice (seed 4251870760)."""
    import random

    from toolgym.envs import World
    from toolgym.envs.generation import GenContext
    from toolgym.envs.pieces import worded_apart
    from toolgym.envs.user_turns import sentence_key, sentences

    domain = toolgym.load_domain("workplace")
    world = World(domain.template(6, "default"))
    try:
        seed = 4251870760
        task = domain.generators["multi_turn"](GenContext(domain, world, random.Random(seed), seed, "multi_turn", 6, "default"))
    finally:
        world.close()
    first, second = ([sentence_key(s) for s in sentences(r) if s.endswith("?")] for r in task.scenario.requests[:2])
    assert not set(first) & set(second), task.scenario.requests
    asked = type("Asked", (), {"request": 'Someone wrote about "backend" in #incidents recently. Who was it?'})
    again = type("Asked", (), {"request": 'Someone wrote about "builds" in #platform recently. Who was it?'})
    other = type("Asked", (), {"request": 'Who last mentioned "builds" in #platform?'})
    assert not worded_apart([asked], again) and worded_apart([asked], other)


def test_a_file_or_channel_reply_says_nothing_the_tools_do_not_show(domain):
    """'According to "Data autumn quarterly report", it's due 2025-05-05. You'll find it in the latest
    version.': files have no versions; 'Here's its topic.' opened a reply before any channel was named."""
    book = domain.phrasebook
    for intent in ("reply_doc_deadline", "reply_doc_budget", "reply_doc_status", "reply_doc_owner", "reply_channel_topic"):
        for index in range(book.combinations(intent)):
            said = book.render(intent, index, title="Plan", value="2025-05-05", channel="#finance", topic="Budgets")
            assert "version" not in said and not said.startswith("Here's its"), said


def test_an_email_s_subject_and_words_and_a_file_s_title_and_text_are_about_one_thing():
    """'Please make a file "Sales Question about the plan notes" containing "FYI: the vendor call is
    cancelled. Thanks!"': the title and the text were drawn apart, as an email's subject and body were."""
    import importlib
    import re
    from pathlib import Path

    import yaml

    package = importlib.import_module("toolgym.domains.workplace")
    phrases = yaml.safe_load((Path(package.__file__).parent / "utterances.yaml").read_text())

    def topic_of(kind: str, value: str) -> set[str]:
        return {name.rsplit("_", 1)[-1] for name, variants in phrases.items() if name.startswith(kind)
                and any(re.fullmatch(re.escape(v).replace(re.escape("{{ first }}"), r"\w+"), value) for v in variants)}

    domain = toolgym.load_domain("workplace")
    seen = 0
    for task in domain.generate_tasks(400, seed=29):
        for call in task.gold_calls():
            if call.name == "send_email":
                subject, words = topic_of("mail_subject_", call.arguments["subject"]), topic_of("mail_text_", call.arguments["body"])
            elif call.name == "create_file":
                team, _, title = call.arguments["title"].partition(" ")
                subject, words = topic_of("note_title_", title), topic_of("note_text_", call.arguments["content"])
            else:
                continue
            assert subject and words and subject & words, (call.arguments, subject, words)
            seen += 1
    assert seen >= 10, seen


def test_a_meeting_s_time_and_a_task_s_day_are_said_as_people_say_them(domain):
    """"Here's the plan: send a decline for the Platform workshop event at 2025-03-20 17:30." and
    "rescheduled to 2025-03-12 15:00 (Europe/Berlin)": the tools' formats, said to a person. What the
    gold says of a meeting or a task's due day reads "on Thursday, March 20 at 17:30 (Berlin time)",
    and a start it must state is its day and its time, each in any format."""
    import re

    from toolgym.envs.gold import gold_messages
    from toolgym.verifiers.matching import output_stated

    raw = re.compile(r"\b\d{4}-\d\d-\d\d\b|\b[A-Z][a-z]+/[A-Z][A-Za-z_]+\b")
    said_as_people = re.compile(r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), [A-Z][a-z]+ \d{1,2}")
    intents = {"reply_scheduled", "reply_rescheduled", "reply_cancelled", "reply_task_added", "reply_first_due",
               "reply_respond_declined", "reply_respond_accepted", "reply_respond_tentative"}
    seen = 0
    for task in domain.generate_tasks(300, seed=31, kinds=["single", "multi_step"]):
        replies = [r for r in task.replies if r.intent in intents]
        if not replies:
            continue
        chat = gold_messages(domain, task)[0]
        said = [m["content"] for m in chat if m["role"] == "assistant" and m.get("content") and said_as_people.search(m["content"])]
        assert said, [m.get("content") for m in chat if m["role"] == "assistant"]
        for text in said:
            assert not raw.search(text), text
        if any(r.intent in ("reply_scheduled", "reply_rescheduled") for r in replies):
            call = next(c for c in task.gold_calls() if c.name in ("create_event", "reschedule_event"))
            day, time = call.arguments["start"].split(" ")
            assert set(task.required_outputs) >= {time}, task.required_outputs
            assert output_stated(next(o for o in task.required_outputs if re.fullmatch(r"[A-Z][a-z]+ \d{1,2}", o)), day)
        seen += 1
    assert seen >= 20, seen


def test_the_user_names_a_day_as_people_do_and_the_call_still_reads_it(domain):
    """"The Marketing retro on 2025-03-17 needs to move to 2025-03-12.": every user named a day so.
    Most say "on Monday, March 17" or "March 12" now (its year goes without saying), some "March
    12th" or "12 March", a few still "2025-03-12"; the gold's calls take the dated day, and the
    verifier reads them as the day the user named."""
    import re

    from tests.conftest import days_the_user_typed

    typed = days_the_user_typed(domain, domain.generate_tasks(200, seed=37, kinds=["single", "multi_step", "multi_turn"]))
    words = [t for t in typed if not re.fullmatch(r"\d{4}-\d\d-\d\d", t)]
    assert len(typed) >= 30 and 0.7 * len(typed) <= len(words) < len(typed), typed


def test_a_share_s_access_level_is_never_said_with_with_twice(domain):
    """"share "Support Q4 quarterly report" with edit rights with Crystal Mcguire, April Bowman and
    Christopher Fowler": the level ("with edit rights") stood before the people. It follows them."""
    import re

    from toolgym.envs.gold import gold_messages

    shared = 0
    for task in domain.generate_tasks(300, seed=43, kinds=["single", "multi_step", "parallel", "injection"]):
        if not any(c.name == "share_file" for c in task.gold_calls()):
            continue
        chat = gold_messages(domain, task)[0]
        said = [m["content"] for m in chat if m["role"] in ("user", "assistant") and m.get("content")]
        assert not [s for s in said if re.search(r"with (?:edit|comment) rights with", s)], said
        shared += 1
    assert shared >= 10, shared


def test_a_time_zone_is_named_as_people_name_one(domain):
    """"No: Sandra Smith works in America/Chicago (Chicago), and you're in America/New_York.": the
    tools' zone ids, said to a person. The reply says "Chicago time", and that is what it must state."""
    from toolgym.envs.gold import gold_messages

    seen = 0
    for task in domain.generate_tasks(300, seed=41, kinds=["parallel", "multi_step"]):
        if not any(r.intent in ("reply_same_zone", "reply_other_zone") for r in task.replies):
            continue
        said = " ".join(m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content"))
        assert "/" not in said.replace("https://", ""), said
        assert any(o.endswith(" time") and o in said for o in task.required_outputs), (task.required_outputs, said)
        seen += 1
    assert seen >= 5, seen


def test_a_file_s_status_is_quoted_as_the_file_writes_it(domain):
    """"According to the file, "Sales March onboarding guide" is draft." and "... reads: in review.":
    a status word dropped into a sentence. Every wording quotes it, for every status a file has."""
    from toolgym.domains.workplace.catalogue import STATUSES

    book = domain.phrasebook
    for index, _ in enumerate(book.variants("reply_doc_status")):
        for status in STATUSES:
            said = book.render("reply_doc_status", index, title="Sales March onboarding guide", value=status)
            assert f'"{status}"' in said and ": " not in said, said


def test_where_a_fact_was_read_fits_every_lead_in():
    """"You'll find it in the top of the file.": a lead-in ("I read that in", "You'll find it in")
    joined to a place that takes "at". Every place fits every lead-in."""
    import toolgym

    book = toolgym.load_domain("workplace").phrasebook
    said = {book.say("reply_doc_status", seed, title="Sales plan", value="draft") for seed in range(400)}
    assert len(said) >= 20 and not [s for s in said if "in the top" in s], sorted(said)


def test_one_note_sent_to_two_people_apart_greets_neither_by_both_names(domain):
    """'Hey Leslie, Christine, the client liked the proposal.' went to Leslie alone and then to
    Christine alone: a note each reads in a message of their own greets its reader, not both."""
    sent = 0
    for task in domain.generate_tasks(300, seed=2, kinds=["parallel"], size="small"):
        messages = [c.arguments for c in task.gold_calls() if c.name == "send_direct_message"]
        if len(messages) != 2 or messages[0]["text"] != messages[1]["text"]:
            continue
        sent += 1
        firsts = [c.arguments["query"].split()[0] for c in task.gold_calls() if c.name == "lookup_colleague"]
        assert not any(f in messages[0]["text"] for f in firsts), (firsts, messages[0]["text"])
    assert sent >= 5, sent


def test_what_a_share_reply_says_people_get_is_what_the_tool_says_they_get(domain):
    """'They'll get a notification.' and 'see it under shared files' were told of a share whose tool
    said neither: what a reply says comes of sharing is what share_file's description says."""
    described = domain.tool("share_file").description.lower()
    assert "link to it by email" in described
    told = 0
    for seed in range(200):
        said = domain.phrasebook.say("reply_shared", seed, title="Q3 plan", names=["Ann Lee"], level="view")
        assert "notification" not in said and "shared files" not in said, said
        if "email" in said or "inbox" in said:
            told += 1
    assert told >= 10, told


def test_the_first_task_due_is_said_to_be_overdue_when_its_day_has_passed(domain):
    """'Next up is "File the board memo", due Saturday, March 8.' was said on March 11: a task whose
    day has passed is overdue, and the reply says so."""
    told = {True: 0, False: 0}
    for task in domain.generate_tasks(400, seed=6, kinds=["single", "parallel"], size="small"):
        if not any(c.name == "list_tasks" for c in task.gold_calls()) or "due first" not in task.scenario.goal:
            continue
        messages = gold_messages(domain, task)[0]
        today = domain.template(task.world_seed, task.world_size).now.date()
        tasks = json.loads(next(m["content"] for m in messages if m["role"] == "tool" and '"due"' in (m["content"] or "")))
        first = min((t for t in tasks if t.get("due")), key=lambda t: t["due"])
        reply = next(m["content"] for m in reversed(messages) if m["role"] == "assistant" and first["title"] in (m["content"] or ""))
        late = dt.date.fromisoformat(first["due"][:10]) < today
        told[late] += 1
        assert ("overdue" in reply or "past its due date" in reply) == late, (first, today, reply)
    assert told[True] >= 2 and told[False] >= 2, told


def test_an_email_or_file_is_agreed_to_with_the_words_it_will_hold(domain):
    """'Ready to send the email "Dates for the demo" to Rachel Watson ...?' asked a yes to words the
    user never saw again: the confirmation quotes the text the email or file will hold."""
    asked = 0
    for task in domain.generate_tasks(300, seed=9, kinds=["single", "multi_step"], size="small"):
        for step in task.plan:
            call_ = next((c for c in step.calls if c.name in ("send_email", "create_file")), None)
            if call_ is None or step.confirm is None:
                continue
            asked += 1
            text = call_.arguments.get("body") or call_.arguments.get("content")
            assert text in step.confirm, (text, step.confirm)
    assert asked >= 5, asked


def test_a_files_deadline_is_said_as_people_write_a_day():
    """"The deadline in "People Q3 retro notes" is 2025-04-11.": the file's header form, read out."""
    from toolgym.domains.workplace.tasks.answers import doc_answer, two_docs
    from toolgym.domains.workplace.tasks.index import index_of
    from toolgym.envs import GenContext, World

    workplace = toolgym.load_domain("workplace")
    world = World(workplace.template(0, "default"))
    desks = [d for d in index_of(world).desk_list() if len(d.readable) >= 2]
    said = []
    for seed in range(80):
        desk = desks[seed % len(desks)]
        ctx = GenContext(domain=workplace, world=world, rng=random.Random(seed), seed=seed, kind="single", world_seed=0,
                         size="default")
        for piece in (doc_answer(ctx, desk), two_docs(ctx, desk)):
            if piece is not None and (piece.reply.intent == "reply_doc_deadline" or piece.reply.vars.get("field") == "deadline"):
                said.append(f"{piece.reply.vars} {piece.outputs}")
    world.close()
    assert said and not [s for s in said if re.search(r"\d{4}-\d{2}-\d{2}", s)], said[:3]


def test_an_unavailable_decline_states_no_address_the_user_did_not_give(domain):
    # the base task found the address by a lookup this chat never makes: the decline may not recite it
    emails = 0
    for task in domain.generate_tasks(60, seed=21, kinds=["no_tool/unavailable"], size="small"):
        reply = domain.phrasebook.say(task.replies[0].intent, task.seed, **task.replies[0].vars)
        request = task.scenario.requests[0]
        emails += task.no_tool.withheld_tools == ["send_email"]
        assert not [a for a in re.findall(r"[\w.+-]+@[\w.-]+\w", reply) if a not in request], (request, reply)
    assert emails >= 3


def test_mail_and_chat_are_sent_in_the_senders_working_day_at_a_time_their_words_fit(domain):
    """Every mail was sent on the hour and a third of it at night: "Morning Erin, ..." at 21:00, a
    chat's "this afternoon" at 00:47. A colleague writes on a weekday, inside their own working
    hours, to the minute, and a morning greeting before noon."""
    from zoneinfo import ZoneInfo

    from toolgym.domains.workplace.catalogue import NOW, WORK_END, WORK_START

    connection = domain.template(2, "default").connection()
    zones = dict(connection.execute("select email, time_zone from employee"))
    ids = dict(connection.execute("select id, email from employee"))
    sent = [(zones.get(sender), owner_zone, body, at) for sender, owner_zone, body, at in connection.execute(
        "select m.sender, e.time_zone, m.body, m.sent_at from mail m join employee e on e.id = m.owner_id")]
    sent += [(zones[ids[author]], None, text, at) for author, text, at in connection.execute(
        "select author_id, text, sent_at from chat_message")]
    minutes = set()
    for zone, owner_zone, text, at in sent:
        utc = dt.datetime.fromisoformat(str(at))
        local = utc.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(zone or owner_zone))  # an outsider's mail: the owner's day
        assert utc < NOW and local.weekday() < 5 and WORK_START <= local.hour < WORK_END, (zone, local, text)
        if re.match(r"Morning\b", text) or "this morning?" in text:
            assert local.hour < 12, (local, text)
        if "this afternoon" in text:
            assert local.hour >= 12, (local, text)
        minutes.add(local.minute)
    assert len(minutes) > 30


def test_the_policy_heading_starts_with_a_capital_whatever_the_brand(domain):
    # a brand written mid-sentence ("the Brightwell workspace assistant") heads the policy as a title
    headings = {domain.policy(0, "small", variant).splitlines()[0] for variant in range(40)}
    assert any("Brightwell workspace assistant" in h for h in headings), headings
    assert all(h.startswith("# ") and h[2].isupper() for h in headings), headings


def test_a_forward_is_agreed_to_with_the_subject_of_the_email_it_sends_on(domain):
    from toolgym.domains.workplace.tables import Mail

    # "Everything is in place to forward Carolyn Smith's email on to Tina Madden": which email?
    asked = 0
    for task in domain.generate_tasks(300, seed=9, kinds=["single", "multi_step"], size="small"):
        for step in task.plan:
            if step.confirm and any(c.name == "forward_message" for c in step.calls):
                asked += 1
                mails = World(domain.template(task.world_seed, "small")).select(Mail)
                subject = next(m for m in mails if m.id == step.calls[0].arguments["message_id"]).subject
                assert f'"{subject}"' in step.confirm, (subject, step.confirm)
    assert asked >= 3, asked


def test_every_meeting_sits_in_its_attendees_working_hours_over_none_of_their_other_meetings(domain):
    """A third of the events fell outside their attendees' working day ("Data review" 19:00 Berlin),
    and an accept could double-book the user without a word: the world's calendars hold together."""
    from zoneinfo import ZoneInfo

    from toolgym.domains.workplace.catalogue import WORK_END, WORK_START

    connection = domain.template(2, "default").connection()
    rows = connection.execute(
        "select a.employee_id, p.time_zone, e.start, e.end from attendee a join event e on e.id = a.event_id "
        "join employee p on p.id = a.employee_id")
    held: dict[str, list[tuple[dt.datetime, dt.datetime]]] = {}
    for person, zone, start, end in rows:
        begin, close = (dt.datetime.fromisoformat(str(t)) for t in (start, end))
        local, local_end = (t.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(zone)) for t in (begin, close))
        assert local.weekday() < 5 and local.date() == local_end.date(), (person, local)
        assert WORK_START <= local.hour and (local_end.hour, local_end.minute) <= (WORK_END, 0), (person, local, local_end)
        held.setdefault(person, []).append((begin, close))
    for spans in held.values():
        spans.sort()
        assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:], strict=False)), spans


def test_an_ack_neither_praises_the_user_for_the_assistants_work_nor_thanks_a_yes_for_details(domain):
    # "Nice work. I've ticked off ..." praised the user for what the assistant did; "Thank you for
    # the details." followed a plain yes to an earlier change
    phrases = domain.phrasebook
    done = {phrases.say("reply_complete_two", seed, titles=["A", "B"]) for seed in range(200)}
    assert not [d for d in done if re.search(r"\b(?:nice|good|great) (?:work|job)\b|well done", d, re.IGNORECASE)], done
    for intent in ("confirm@formal", "confirm@elderly"):
        said = {phrases.say(intent, seed, action="tick off \"A\"", details=False) for seed in range(300)}
        assert not [s for s in said if "for the details" in s or "that's everything I need" in s], intent
        assert any("Thank you for the details." in phrases.say(intent, seed, action="x", details=True) for seed in range(300)) \
            or intent != "confirm@formal"


def test_the_steps_of_one_piece_of_work_fall_due_in_the_order_they_are_done(domain):
    # "Send the security training" was due 2025-03-19, "Draft the security training" two days later
    order = ("Plan", "Draft", "Review", "Approve", "Send")  # steps whose order no one doubts
    connection = domain.template(2, "default").connection()
    steps: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for owner, title, due in connection.execute("select owner_id, title, due from todo where due is not null"):
        verb, _, thing = title.partition(" ")
        if verb in order:
            steps.setdefault((owner, thing), []).append((order.index(verb), str(due)))
    pairs = [sorted(same) for same in steps.values() if len(same) > 1]
    assert len(pairs) > 10
    assert all([due for _, due in same] == sorted(due for _, due in same) for same in pairs)


def test_no_request_presses_for_time_and_says_no_rush(domain):
    """"Need this done. ... No rush." said both in one message: the opener pressed, the aside did not.
    (Two requests of one message still draw their asides apart: "It's a bit urgent." then "No rush.")"""
    urgent = re.compile(r"Need this done", re.IGNORECASE)
    for task in domain.generate_tasks(300, seed=24, size="small"):
        assert not [r for r in task.scenario.requests if urgent.search(r) and "No rush" in r]
