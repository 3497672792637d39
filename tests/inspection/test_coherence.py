"""Each coherence detector finds its class in a chat that has it and nothing in one that does not."""

from __future__ import annotations

import pytest

from toolgym.generators.inspection.coherence import DETECTORS, Knowledge, coherence_findings


def _row(*turns, kind="single", domain="retail", task_id="t1"):
    messages = []
    for role, content, *extra in turns:
        message = {"role": role, "content": content}
        for item in extra:
            message.update(item)
        messages.append(message)
    return {"domain": domain, "kind": kind, "task_id": task_id, "messages": messages}


CALL = {"tool_calls": [{"id": "c1", "function": {"name": "get_order", "arguments": {"order_id": "#W1"}}}]}
WRITE = {"tool_calls": [{"id": "c2", "function": {"name": "cancel_order", "arguments": {"order_id": "#W1"}}}]}


class _Task:
    def __init__(self, persona="A careful shopper.", unknown=(), valid="", facts=(), requests=(), revised=(), goal=""):
        from types import SimpleNamespace

        self.scenario = SimpleNamespace(persona=persona, unknown=list(unknown), facts=list(facts), requests=list(requests),
                                        revisions=[SimpleNamespace(segment=s) for s in revised], goal=goal)
        self.replies = [SimpleNamespace(vars={"valid": valid} if valid else {})]
        self.domain, self.world_seed = "retail", 0


def _know(task=None, handoff=False):
    return Knowledge(
        writes=lambda _, tool: tool.startswith("cancel"),
        handoff=lambda _: handoff,
        task=lambda _: task,
    )


# (class, a row that has it, a row that does not, the task the rows were played from)
CASES = [
    ("empty_slot",
     _row(("user", "Cancel #W1."), ("assistant", None, {"reasoning_content": "The policy is clear:. I reply."})),
     _row(("user", "Cancel #W1."), ("assistant", None, {"reasoning_content": "Order #W1 has shipped, so I refuse."})), None),
    ("greeting_as_evidence",
     _row(("user", "Hi there. Cancel #W1."), ("assistant", None, {"reasoning_content": 'The user said "Hi there.", so I call get_order.'}, CALL)),
     _row(("user", "Hi there. Cancel #W1."), ("assistant", None, {"reasoning_content": "The user named #W1, so I call get_order."}, CALL)), None),
    ("trace_without_fact",
     _row(("user", "Cancel #W1."), ("assistant", None, {"reasoning_content": "The conversation is over, so I close."})),
     _row(("user", "Cancel #W1."), ("assistant", None, {"reasoning_content": 'The user wrote "Cancel #W1", so I look it up.'})), None),
    ("doubled_lead",
     _row(("user", "Any outage in Tampa?"), ("assistant", "Here's what I see. Here's what I found: Tampa: no active outage.")),
     _row(("user", "Any outage in Tampa?"), ("assistant", "I've checked. Here's what I found: Tampa: no active outage.")), None),
    ("talk_after_goodbye",
     _row(("user", "Thanks."), ("assistant", "You're welcome. Have a great day! Everything is taken care of.")),
     _row(("user", "Thanks."), ("assistant", "You're welcome. Everything is taken care of. Have a great day!")), None),
    ("done_after_read_only",
     _row(("user", "Status of #W1?"), ("assistant", None, CALL), ("assistant", "It shipped."), ("user", "Thanks."),
          ("assistant", "Glad to help. Everything is taken care of.")),
     _row(("user", "Cancel #W1."), ("assistant", None, WRITE), ("assistant", "Done."), ("user", "Thanks."),
          ("assistant", "Glad to help. Everything is taken care of.")), None),
    ("mid_sentence_capital",
     _row(("assistant", "I will Pay $12.00 on bill B1 with The card ending in 4242.")),
     _row(("assistant", "I will pay $12.00 on bill B1 at Best Buy with the card ending in 4242.")), None),
    ("word_clash",
     _row(("assistant", "I appreciate you your time today.")),
     _row(("assistant", "I appreciate your time today. The A/C is on.")), None),
    ("doubled_thanks",
     _row(("assistant", "Thank you for reaching out. Thanks for checking with us.")),
     _row(("assistant", "Thank you for reaching out. Glad it's sorted.")), None),
    ("greeting_out_of_place",
     _row(("user", "My email is a@b.co. Hi there. Cancel #W1."), ("assistant", "Done."), ("user", "Hello. One more thing.")),
     _row(("user", "Hi there. My email is a@b.co. Cancel #W1."), ("assistant", "Done."), ("user", "One more thing.")), None),
    ("greeting_out_of_place",
     _row(("assistant", "Thanks for reaching out. Your email?"), ("user", "a@b.co. Also #W2."), ("assistant", "Thanks for getting in touch. Which item?")),
     _row(("assistant", "Thanks for reaching out. Your email?"), ("user", "a@b.co. Also #W2."), ("assistant", "Sure. Which item?")), None),
    ("greeting_out_of_place",
     _row(("assistant", "Hello, I'm glad you got in touch. Your number?"), ("user", "555-123-4567."),
          ("assistant", "Hello, I'm glad you got in touch. Your location?")),
     _row(("assistant", "Hello, I'm glad you got in touch. Your number?"), ("user", "555-123-4567."),
          ("assistant", "Thank you, that helps. Your location?")), None),
    ("check_without_call",
     _row(("user", "Where is #W1?"), ("assistant", "Let me check that for you.")),
     _row(("user", "Where is #W1?"), ("assistant", "Let me check that for you.", CALL)), None),
    ("delight_after_refusal",
     _row(("user", "Order #W12 please."), ("assistant", "#W12 isn't a valid order id."), ("user", "Wonderful, thank you!"),
          kind="no_tool/invalid_value"),
     _row(("user", "Order #W12 please."), ("assistant", "#W12 isn't a valid order id."), ("user", "Oh, I'll check it."),
          kind="no_tool/invalid_value"), None),
    ("repeated_user_sentence",
     _row(("user", "Thanks. Cancel #W1."), ("assistant", "Done."), ("user", "Thanks.")),
     _row(("user", "Thanks. Cancel #W1."), ("assistant", "Done."), ("user", "Great, that's all.")), None),
    ("register_mismatch",
     _row(("user", "Yes, please go ahead, dear.")), _row(("user", "Yes, please go ahead.")), _Task()),
    ("handoff_without_one",
     _row(("user", "Open the sunroof."), ("assistant", "I can't do that now; a human agent can help."), kind="no_tool/unavailable"),
     _row(("user", "Open the sunroof."), ("assistant", "I can't do that now, but I can tilt it."), kind="no_tool/unavailable"), None),
    ("asked_what_user_lacks",
     _row(("user", "Add Ann as a payee. I don't know her account number."), ("assistant", "What's the account number?"),
          kind="no_tool/missing_info"),
     _row(("user", "Add Ann as a payee. I don't know her account number."),
          ("assistant", "I'll need her account number to add her; come back when you have it."), kind="no_tool/missing_info"),
     _Task(unknown=["account number"])),
    ("invalid_without_offer",
     _row(("user", "Add 6 bags."), ("assistant", "6 is too many bags."), kind="no_tool/invalid_value"),
     _row(("user", "Add 6 bags."), ("assistant", "6 is too many: I can add up to 3 bags."), kind="no_tool/invalid_value"),
     _Task(valid="3 bags")),
]


def test_every_detector_has_a_case():
    assert {d.name for d in DETECTORS} == {c[0] for c in CASES}


@pytest.mark.parametrize(("name", "bad", "good", "task"), CASES, ids=[c[0] for c in CASES])
def test_a_detector_finds_its_class_and_only_there(name, bad, good, task):
    know = _know(task)
    assert coherence_findings([bad], know)[name].rows == 1, name
    assert coherence_findings([good], know)[name].rows == 0, name


def test_a_class_without_what_it_needs_is_not_measured():
    found = coherence_findings([CASES[0][1]], Knowledge())
    assert not found["handoff_without_one"].measured and not found["invalid_without_offer"].measured
    assert found["empty_slot"].measured


def test_a_domain_with_a_handoff_may_offer_one():
    row = _row(("user", "Cancel #W1."), ("assistant", "I can't do that now; a human agent can help."), kind="no_tool/unavailable")
    assert coherence_findings([row], _know(handoff=True))["handoff_without_one"].rows == 0


def test_a_declined_handoff_is_not_an_offer_of_one():
    declined = _row(("user", "Put me through to someone about my lost bag."),
                    ("assistant", "Sorry, but right now I can't pass you to a colleague who handles lost bags. I can help with your bookings."),
                    kind="no_tool/unavailable")
    assert coherence_findings([declined], _know())["handoff_without_one"].rows == 0
    offered = _row(("user", "Return #W1."), ("assistant", "I can't process returns now. I can point you to a human agent for this."),
                   kind="no_tool/unavailable")
    assert coherence_findings([offered], _know())["handoff_without_one"].rows == 1


# A message quoted for sending is the user's cargo: its thanks and sign-offs are not the speaker's,
# and the sentence around it goes on after its closing quote.
QUOTED = [
    ("doubled_thanks",
     _row(("assistant", 'Thanks. I will post "Fixed." in #general. Thank you.')),
     _row(("assistant", 'Thanks. I will post "Fixed. Thanks!" in #general.'))),
    ("repeated_user_sentence",
     _row(("user", 'Send "Done. Thanks!" to Ann. Thanks.'), ("assistant", "Sent."), ("user", "Thanks.")),
     _row(("user", 'Send "Done. Thanks!" to Ann.'), ("assistant", "Sent."), ("user", 'Reply "Thanks!" to Bo.'))),
    ("mid_sentence_capital",
     _row(("assistant", 'I will put "Fixed. Thanks!" In #sales.')),
     _row(("assistant", 'I will say "Fixed. Thanks." And then I will close the ticket.'))),
    # a phrase quoted in single marks is no thanks of the speaker's; a name with "'s" is no verb
    ("doubled_thanks",
     _row(("user", "Thank you. How do I say 'hello' in Swahili? Thx.")),
     _row(("user", "How do I say 'thank you' in Swahili? Thx."))),
    ("mid_sentence_capital",
     _row(("user", "Then one more: Switch to Mark the profile.")),
     _row(("user", "Then one more: Switch to Mark's driver profile."))),
]


@pytest.mark.parametrize(("name", "bad", "good"), QUOTED, ids=[c[0] for c in QUOTED])
def test_a_quoted_message_is_not_the_speakers_words(name, bad, good):
    assert coherence_findings([bad], _know())[name].rows == 1, name
    assert coherence_findings([good], _know())[name].rows == 0, name


def test_an_elderly_persona_for_a_younger_customer_is_a_mismatch():
    from types import SimpleNamespace

    born = [SimpleNamespace(label="date of birth", value="1990-05-01")]
    young = _Task(persona="A retiree who is polite but unsure about online banking.", facts=born)
    found = coherence_findings([_row(("user", "Hello."))], _know(young))["register_mismatch"]
    assert found.rows == 1 and "aged" in found.examples[0]
    old = _Task(persona=young.scenario.persona, facts=[SimpleNamespace(label="date of birth", value="1940-05-01")])
    assert coherence_findings([_row(("user", "Hello, dear."))], _know(old))["register_mismatch"].rows == 0


def test_a_request_that_takes_back_the_one_before_may_restate_it():
    first, second = "I want to return the vest from #W1.", "Okay, scratch that. I want to return the vest from #W1. Refund my gift card."
    chat = _row(("user", first), ("assistant", "Shall I?"), ("user", "No."), ("user", second))
    assert coherence_findings([chat], _know(_Task(requests=[first, second], revised=[1])))["repeated_user_sentence"].rows == 0
    assert coherence_findings([chat], _know(_Task(requests=[first, second])))["repeated_user_sentence"].rows == 1


def test_a_payee_named_by_first_name_is_not_a_verb_capitalised():
    chat = _row(("user", "I need to send $650.00 to Mark out of my checking account ending in 9802."), domain="banking")
    payee = _Task(goal="Pay $650.00 to Mark Williams (at Pinecrest Bank) from your checking account ending in 9802.")
    assert coherence_findings([chat], _know(payee))["mid_sentence_capital"].rows == 0
    # the same words with no such person in the task are still a verb capitalised
    assert coherence_findings([chat], _know(_Task(goal="Pay Ann Lee $5.")))["mid_sentence_capital"].rows == 1


def test_lacking_time_is_not_lacking_the_fact():
    chat = _row(("user", "I don't have time for this. Adjust the charge limit."), ("assistant", "What charge limit would you like?"),
                kind="no_tool/missing_info")
    assert coherence_findings([chat], _know(_Task(unknown=["charge limit"])))["asked_what_user_lacks"].rows == 0


def test_a_trace_quoting_a_request_cut_short_or_with_a_title_quotes_what_was_seen():
    from toolgym.generators.inspection.coherence import trace_without_fact

    request = 'Post "Q2 plan" in the channel for the team working on the new office move, and mention the date please.'
    for trace in ('The user asked "Post \'Q2 plan\' in the channel for the team working on the new office move …". I ask.',
                  'The user asked "Post \'Q2 plan\' in the channel". I ask.'):
        assert not trace_without_fact(_row(("user", request), ("assistant", None, {"reasoning_content": trace})), Knowledge())
    # words the user never said are still no fact seen, with or without the marks read either way
    unseen = 'The user asked "Post \'Q3 plan\' in the channel …". I ask.'
    assert trace_without_fact(_row(("user", request), ("assistant", None, {"reasoning_content": unseen})), Knowledge())


def test_a_trace_naming_places_with_an_acronym_names_what_was_seen():
    """"The results show two places that fit what the user said: Moore EV Hub and Herring EV Hub." failed
    a gate: a name with "EV" in it was read as no name at all."""
    from toolgym.generators.inspection.coherence import trace_without_fact

    result = '[{"name": "Moore EV Hub"}, {"name": "Herring EV Hub"}]'
    trace = "The results show two places that fit what the user said: Moore EV Hub and Herring EV Hub. I ask which."
    assert not trace_without_fact(_row(("user", "Navigate to the charger."), ("tool", result), ("assistant", None, {"reasoning_content": trace})), Knowledge())
    elsewhere = trace.replace("Moore", "Wright").replace("Herring", "Lopez")
    assert trace_without_fact(_row(("user", "Navigate to the charger."), ("tool", result), ("assistant", None, {"reasoning_content": elsewhere})), Knowledge())


def test_a_trace_naming_people_whose_names_hold_a_capital_names_what_was_seen():
    """"More than one person fits: Courtney McKinney and Alexa McKinney." was read as no name at all."""
    from toolgym.generators.inspection.coherence import trace_without_fact

    result = '[{"title": "Courtney McKinney"}, {"title": "Alexa McKinney"}]'
    trace = "More than one person fits: Courtney McKinney and Alexa McKinney. Picking one myself would be a guess."
    assert not trace_without_fact(_row(("user", "When was McKinney born?"), ("tool", result), ("assistant", None, {"reasoning_content": trace})), Knowledge())
    elsewhere = trace.replace("Courtney", "Wendy").replace("Alexa", "Ruth")
    assert trace_without_fact(_row(("user", "When was McKinney born?"), ("tool", result), ("assistant", None, {"reasoning_content": elsewhere})), Knowledge())


def test_a_turn_that_says_twice_it_is_done_is_a_doubled_lead():
    from toolgym.generators.inspection.coherence import doubled_lead

    for said in ("That's gone through, it went through fine.", "Right, that's done, that's finished. Paid $5."):
        assert doubled_lead(_row(("assistant", said)), Knowledge()), said
    for said in ("Done and done!", "All done, it went through fine.", "Sorted. That's done for you now."):
        assert not doubled_lead(_row(("assistant", said)), Knowledge()), said
