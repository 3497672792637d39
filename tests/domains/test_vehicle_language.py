"""The vehicle assistant's wording: what its replies may claim (no turn-by-turn guidance, no warm-up
time), what its questions invite, whose rule a refusal names, and how it names what it cannot do."""

from __future__ import annotations

import toolgym


def test_a_seat_heater_switched_off_is_not_said_to_warm_up():
    """"The heater in the driver's seat is now off. Give it a minute to heat." """
    phrases = toolgym.load_domain("vehicle").phrasebook
    off = [phrases.say("reply_seat_heat", seed, seat="the driver's seat", state="off") for seed in range(300)]
    on = [phrases.say("reply_seat_heat", seed, seat="the driver's seat", state="level 3") for seed in range(300)]
    warm = ("warm up", "warming", "too warm")
    assert not [t for t in off if any(w in t for w in warm)]
    assert [t for t in on if any(w in t for w in warm)]


def test_the_assistant_claims_no_turn_by_turn_guidance_nor_how_long_a_seat_takes_to_warm():
    """"You'll see each turn on the screen.", "I'll guide you turn by turn.": `set_navigation` returns
    the place, its distance and the time, nothing of turns or a screen; "Give it a minute to heat." and
    "It warms up within a minute or two.": no result says how long a seat heater takes."""
    import re

    phrases = toolgym.load_domain("vehicle").phrasebook
    routes = {phrases.say("reply_navigation", seed, name="Lakeside Airport", eta=24) for seed in range(300)}
    assert len(routes) > 20 and not [t for t in routes if re.search(r"screen|\bturns?\b|guide|directions|safe travels|drive safely|good trip", t, re.I)]
    for state in ("off", "level 1", "level 3"):
        seats = {phrases.say("reply_seat_heat", seed, seat="the driver's seat", state=state) for seed in range(300)}
        assert len(seats) > 5 and not [t for t in seats if re.search(r"minute", t)], seats


def test_asking_for_a_cruise_speed_invites_no_value_the_policy_refuses():
    """"Please tell me the cruise speed you want. Any value the car allows is fine.": the car allows
    up to 160 km/h, the policy only 130; nor is the driver promised that whatever they say is set."""
    import re

    book = toolgym.load_domain("vehicle").phrasebook
    asks = {book.say("ask_missing", seed, labels=["cruise speed"]) for seed in range(300)}
    promise = re.compile(r"any value|allows|is fine|I'll set it|it's done", re.I)
    assert len(asks) > 20 and not [a for a in asks if promise.search(a)], [a for a in asks if promise.search(a)]


def test_a_refusal_calls_no_limit_of_the_car_a_rule_of_the_policy():
    """"Apologies, but the policy doesn't allow it, so I can't: video can't play while the car is
    moving.": the car enforces that limit (and the charger's, the trunk's); the policy lists it as the car's."""
    book = toolgym.load_domain("vehicle").phrasebook
    said = {book.render("refuse_policy", i, rule="video can't play while the car is moving", instead="play the radio")
            for i in range(book.combinations("refuse_policy"))}  # fmt: skip
    assert len(said) > 50 and not [t for t in said if "policy" in t.lower()]


def test_a_withheld_media_player_is_declined_in_a_drivers_words_not_its_label():
    """"I'm unable to play media from a source.": the tool's description was said as the thing the
    assistant cannot do; a person names what cannot be played."""
    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain("vehicle")
    tasks = [t for t in domain.generate_tasks(80, seed=3, kinds=["no_tool/unavailable"], size="small")
             if t.no_tool and t.no_tool.withheld_tools == ["play_media"]]  # fmt: skip
    assert tasks
    for task in tasks[:3]:
        reply = next(m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content"))
        assert "from a source" not in reply and "the radio" in reply, reply
