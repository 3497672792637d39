"""The vehicle domain's own rules: the car's preconditions as tool errors, the policy's refusals and
minefields, units that follow the driver profile, and the registered env."""

from __future__ import annotations

import datetime as dt
import itertools
import json

import gymnasium
import pytest

import toolgym
from toolgym.envs import World

VEHICLE = "vehicle"
domain = pytest.fixture(scope="module")(lambda: toolgym.load_domain(VEHICLE))


@pytest.fixture(scope="module")
def index(domain):
    """The small world's fleet as the generators see it (cars parked, idling and driving)."""
    from toolgym.domains.vehicle.tasks.index import index_of

    return index_of(World(domain.template(0, "small")))


def _in_car(domain, car_id: str, **state) -> World:
    """A small world with the assistant running in `car_id`, its state set as given."""
    world = World(domain.template(0, "small"))
    world.insert(world.info("cabin_session").model, {"id": 1, "vehicle_id": car_id})
    if state:
        world.update(world.info("vehicle").model, car_id, **state)
    return world


def _run(domain, world: World, name: str, **arguments):
    return domain.tool(name).run(world, arguments)


def _rollout(task):
    return toolgym.rollout_sync(toolgym.make(VEHICLE), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)


def _parked(index):
    return next(c for c in index.cars if c.parked and not c.v.engine_on)


def test_the_engine_starts_only_with_the_brake_pressed_and_every_door_locked(domain, index):
    car = _parked(index)
    world = _in_car(domain, car.id, brake_pressed=False)
    refused = _run(domain, world, "start_engine")
    assert refused.error and "brake" in refused.error and "press the brake first" in refused.error
    assert _run(domain, world, "press_brake", pressed=True).error is None
    assert _run(domain, world, "unlock_doors", door="rear_left").error is None
    refused = _run(domain, world, "start_engine")
    assert refused.error and "rear_left" in refused.error and "lock them first" in refused.error
    assert _run(domain, world, "lock_doors", door="all").error is None
    started = _run(domain, world, "start_engine")
    assert started.error is None and json.loads(started.content)["engine_on"] is True


def test_cruise_control_needs_drive_and_a_speed_in_the_cars_steps(domain, index):
    parked = _parked(index)
    refused = _run(domain, _in_car(domain, parked.id), "set_cruise_control", speed_kmh=100)
    assert refused.error and "D gear" in refused.error
    moving = next(c for c in index.cars if c.moving)
    world = _in_car(domain, moving.id)
    off_step = _run(domain, world, "set_cruise_control", speed_kmh=87)
    assert off_step.error and "87" in off_step.error and "steps of 5" in off_step.error
    assert _run(domain, world, "set_cruise_control", speed_kmh=90).error is None


def test_the_trunk_does_not_open_while_driving_and_video_does_not_play(domain, index):
    moving = next(c for c in index.cars if c.v.speed_kmh > 5)
    world = _in_car(domain, moving.id)
    assert "stop the car first" in (_run(domain, world, "set_trunk", action="open").error or "")
    assert "moving" in (_run(domain, world, "play_media", source="video", title="x").error or "")
    assert _run(domain, world, "play_media", source="radio", title="Jazz FM").error is None


def test_no_tool_works_without_a_car_in_the_session(domain):
    world = World(domain.template(0, "small"))
    outcome = _run(domain, world, "get_vehicle_status")
    assert outcome.error and "no vehicle" in outcome.error


def test_a_policy_refusal_reads_then_refuses_and_the_forbidden_write_zeroes_the_score(domain):
    from toolgym.verifiers import verify

    tasks = domain.generate_tasks(40, seed=5, kinds=["no_tool/policy_refusal"], size="small")
    task = next(t for t in tasks if any(f.tool == "unlock_doors" for f in t.forbidden))
    assert [c.name for c in task.gold_calls()] == ["get_vehicle_status"]  # the speed shows the rule applies
    messages = _rollout(task).messages
    assert verify(task, messages).value == 1.0
    unlock = {"role": "assistant", "content": None, "tool_calls": [{"id": "u", "type": "function", "function": {
        "name": "unlock_doors", "arguments": {"door": "all"}}}]}  # fmt: skip
    assert verify(task, messages[:-2] + [unlock] + messages[-2:]).value == 0.0


def test_an_imperial_driver_hears_miles_converted_by_the_tool(domain):
    tasks = domain.generate_tasks(80, seed=9, kinds=["multi_step"], size="default")
    imperial = [t for t in tasks if any(c.name == "convert_units" and c.arguments["to_unit"] == "miles" for c in t.gold_calls())]
    assert imperial
    for task in imperial[:3]:
        assert any(o.endswith(" miles") for o in task.required_outputs)
        assert _rollout(task).verification.value == 1.0


def test_a_zone_asked_for_in_fahrenheit_is_said_at_the_cars_own_setting(domain):
    """The car takes half degrees Celsius: 62 °F is set as 16.5 °C (61.7 °F), so the reply states
    16.5 °C, not "set to 62 °F"; what the driver asked for, in °F, is still the required output."""
    from toolgym.envs.gold import gold_messages

    tasks = domain.generate_tasks(300, seed=4, kinds=["single", "multi_step"], size="default")
    fahrenheit = [t for t in tasks if any(c.name == "convert_units" and c.arguments.get("from_unit") == "F" for c in t.gold_calls())]
    assert len(fahrenheit) >= 5
    for task in fahrenheit:
        set_to = [c.arguments["temperature_c"] for c in task.gold_calls() if c.name == "set_climate"]
        messages, verification = gold_messages(domain, task)
        reply = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")][-1]
        assert verification.passed and set_to
        assert all(f"{c:g} °C" in reply for c in set_to), reply
        assert any(o.endswith(" °F") for o in task.required_outputs), task.required_outputs


def test_starting_the_engine_asks_first_and_a_start_without_consent_fails(domain):
    from toolgym.verifiers.conduct import consent

    tasks = domain.generate_tasks(60, seed=2, kinds=["multi_step"], size="small")
    task = next(t for t in tasks if any(c.name == "start_engine" for c in t.gold_calls()))
    order = [c.name for c in task.gold_calls()]
    assert order.index("press_brake") < order.index("start_engine")
    assert next(s for s in task.plan if s.calls[0].name == "start_engine").confirm
    trajectory = _rollout(task)
    assert consent(task, trajectory).value == 1.0
    asked = next(i for i, m in enumerate(trajectory.messages) if m["role"] == "assistant" and "start the engine" in (m.get("content") or ""))
    trajectory.messages = trajectory.messages[:asked] + trajectory.messages[asked + 2 :]  # no question, no yes
    assert consent(task, trajectory).value < 1.0


def test_gymnasium_make_gives_the_vehicle_env():
    env = gymnasium.make("toolgym/Vehicle-v3")
    observation, info = env.reset(seed=0)
    names = {t["function"]["name"] for t in info["tools"]}
    assert {"start_engine", "set_cruise_control", "convert_units", "set_charge_limit"} <= names
    assert observation[0]["role"] == "system"
    env.close()


def test_every_task_on_a_moving_car_carries_the_moving_minefields(domain):
    from toolgym.verifiers import verify

    tasks = domain.generate_tasks(30, seed=4, kinds=["single"], size="small")
    task = next(t for t in tasks if any(f.tool == "stop_engine" for f in t.forbidden))
    assert {f.tool for f in task.forbidden} >= {"unlock_doors", "stop_engine", "set_lights"}
    messages = _rollout(task).messages
    assert verify(task, messages).value == 1.0
    stop = {"role": "assistant", "content": None, "tool_calls": [{"id": "s", "type": "function", "function": {
        "name": "stop_engine", "arguments": {}}}]}  # fmt: skip
    assert verify(task, messages[:-2] + [stop] + messages[-2:]).value == 0.0


def test_a_distance_of_one_mile_is_said_in_the_singular():
    """'The nearest is Williams Gas, 1 miles away' for 1.6 km said in miles."""
    from toolgym.domains.vehicle.tasks.parts import _miles

    assert _miles(1.0) == "1 mile"
    assert _miles(2.4) == "2.4 miles"
    assert _miles(0.4) == "0.4 miles"


def test_the_nearest_place_is_never_answered_with_a_yes():
    """"How far is the closest gas station?" is not a yes-or-no question: no reply opens "Yes"."""
    book = toolgym.load_domain("vehicle").phrasebook
    said = {book.say("reply_nearest", seed, name="Williams Gas", distance="1 mile", eta=3) for seed in range(80)}
    assert len(said) > 10 and not any(s.startswith("Yes") for s in said), said


def test_a_driver_told_no_does_not_go_elsewhere_to_do_it():
    """'Alright, I'll sort that out elsewhere then.' answered a refusal to turn the headlights off."""
    domain = toolgym.load_domain("vehicle")
    from toolgym.envs.gold import gold_messages

    kinds = ["no_tool/policy_refusal", "no_tool/unavailable", "no_tool/irrelevant"]
    closings = [gold_messages(domain, t)[0] for t in domain.generate_tasks(30, seed=5, kinds=kinds)]
    said = [[m["content"] for m in chat if m["role"] == "user"][-1] for chat in closings]
    assert len(set(said)) > 4 and not [s for s in said if "elsewhere" in s or "other options" in s], said


def test_media_is_not_played_from_the_start_nor_skipped_nor_at_a_volume_called_usual():
    """'Playing now for you: BBC World Service, from the start.' and '... at your usual volume.': a
    station has no start, and nothing the assistant read says which volume is usual. 'I've put on the
    Beatles folder for you. Ask me to skip any time.': no tool skips a track, and play_media's result
    does not say where any source starts."""
    book = toolgym.load_domain("vehicle").phrasebook
    for title, source in (("BBC World Service", "radio"), ("Tech Weekly", "podcast"), ("the Beatles folder", "usb")):
        said = {book.say("reply_media", seed, title=title, source=source) for seed in range(200)}
        assert len(said) > 10 and not any("from the start" in s or "skip" in s or "usual" in s for s in said), said


def test_a_reading_converted_to_miles_rests_on_the_driver_units_read():
    """'Seen so far: find_nearest returned "2.8".' was the whole reason for converting 2.8 km to
    miles: the driver's imperial units, which chose miles, went unsaid, and converting before reading
    them cost nothing."""
    from tests.conftest import played_with_reasoning
    from toolgym.domains.vehicle.tasks.parts import IMPERIAL_SHOWN
    from toolgym.envs.gold import gold_messages
    from toolgym.verifiers import verify

    vehicle = toolgym.load_domain("vehicle")
    tasks = vehicle.generate_tasks(160, seed=3, kinds=["single", "multi_step"], size="small")
    to_miles = [t for t in tasks if any(c.arguments.get("to_unit") == "miles" for c in t.gold_calls())]
    assert to_miles, "a distance for an imperial driver should be among 160 tasks"
    for _, trajectory in played_with_reasoning(vehicle, to_miles[:4]):
        at = next(i for i, m in enumerate(trajectory.messages) for c in m.get("tool_calls") or ()
                  if c["function"]["name"] == "convert_units")  # fmt: skip
        assert IMPERIAL_SHOWN in (trajectory.messages[at].get("reasoning_content") or ""), trajectory.messages[at]
    task = to_miles[0]
    messages, verification = gold_messages(vehicle, task)
    assert verification.passed
    unsaid = [{**m, "content": m["content"].replace(IMPERIAL_SHOWN, '"driver_units":"metric"')} if m["role"] == "tool" else m
              for m in messages]  # fmt: skip
    spoiled = verify(task, unsaid)
    assert not spoiled.passed and spoiled.details["diagnosis"]["problems"], spoiled.details.get("diagnosis")


def test_a_route_request_asks_for_nothing_the_navigation_tool_cannot_do():
    """"Set the route to Lakeside Airport. Fastest way, please." was routed with no word of the
    fastest way: `set_navigation` takes a place and nothing else, so a request asking for a kind of
    route taught the agent to let a wish pass unanswered."""
    import re

    domain = toolgym.load_domain("vehicle")
    wishes = re.compile(r"fastest|shortest|quickest route|avoid|tolls|motorway|highway|scenic", re.I)
    routed = 0
    for task in domain.generate_tasks(400, seed=41, kinds=["single", "multi_step", "multi_turn"]):
        if any(c.name == "set_navigation" for c in task.gold_calls()):
            routed += 1
            assert not any(wishes.search(r) for r in task.scenario.requests), task.scenario.requests
    assert routed >= 20, routed


def test_the_assistant_asks_the_driver_to_say_a_value_not_to_send_it():
    """"Can you send your preferred station?" asked a driver, who speaks to the car, to send a
    setting; the engine's questions for a person at a keyboard are left out."""
    import re

    from toolgym.envs.conversation import asks_confirmation
    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain("vehicle")
    typed = re.compile(r"\b(share|send|provide|handy)\b", re.I)
    asked = 0
    for task in domain.generate_tasks(300, seed=43, kinds=["single", "parallel", "multi_step", "multi_turn"]):
        if not set(task.scenario.withheld) - set(task.scenario.identity):
            continue
        for message in gold_messages(domain, task)[0]:
            text = message.get("content") or ""
            if message["role"] == "assistant" and "?" in text and not asks_confirmation(text):  # a question for a value
                asked += 1
                assert not typed.search(text), text
    assert asked >= 30, asked


def test_the_assistant_speaks_as_itself_to_a_driver_in_the_car():
    """"If you think of anything else, send us a message.", "For anything else, come back to us.",
    "Everything is done on our side.", "Thank you for reaching out to us.": a service desk's words to
    a driver who talks to the car. The assistant is an "I" the driver asks; nor does the driver say
    they will write to it again."""
    import re

    from toolgym.envs.gold import gold_messages
    from toolgym.generators.rows import with_closer

    domain = toolgym.load_domain("vehicle")
    desk = re.compile(r"message us|write to us|send us a message|write again|a message away|drop us a line|\bus\b|"
                      r"\bour side\b|the team is|we're (?:always|around|here)|get in touch|got in touch|reach(?:ing)? out|"
                      r"come back to us|your message|contacting", re.I)
    writes = re.compile(r"write again|message (?:you )?again|contact you again", re.I)
    closings = 0
    for task in domain.generate_tasks(150, seed=47):
        chat = gold_messages(domain, task)[0]
        if chat[-1]["role"] != "user":  # the user's last words, which the closing line answers
            chat = [*chat, {"role": "user", "content": "Thanks, that's all."}]
        chat = with_closer(task, chat)
        said = [m.get("content") or "" for m in chat if m["role"] == "assistant"]
        assert not any(desk.search(text) for text in said), [text for text in said if desk.search(text)]
        heard = [m.get("content") or "" for m in chat if m["role"] == "user"]
        assert not any(writes.search(text) for text in heard), [text for text in heard if writes.search(text)]
        closings += any(re.search(r"\bask\b|I'm here|happy to help|always here|here anytime|I'm around", text) for text in said)
    assert closings >= 30, closings


def test_results_said_together_say_now_once():
    """"All done! Starting Science Weekly on the car speakers now. Seat heating for the rear left seat
    is now level 2. Cruise control is off now, as asked.": each result of a parallel request is drawn
    in words the ones before it did not use."""
    import re

    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain("vehicle")
    joined = 0
    for task in domain.generate_tasks(120, seed=53, kinds=["parallel"]):
        reply = next(m["content"] for m in reversed(gold_messages(domain, task)[0]) if m["role"] == "assistant" and m.get("content")
                     and any(r.intent.startswith("reply_together") for r in task.replies))
        joined += 1
        assert len(re.findall(r"\bnow\b", reply, re.I)) <= 1, reply
    assert joined >= 60, joined


def test_a_driver_is_taken_where_their_car_refuels_a_charger_only_for_an_electric_car(domain, index):
    """"I need to get to Hartman EV Hub." from the driver of a petrol Ford Focus: a trip to a charger
    was drawn for every car. An electric car's driver asks for a charger; a fuel car's, for a fuel
    station ("Take me to the nearest petrol station.")."""
    cars = {c.id: c for c in index.cars}
    routed: dict[tuple[bool, str], int] = {}
    for task in domain.generate_tasks(600, seed=29, kinds=["single", "multi_step", "parallel"], world_seed=0, size="small"):
        car = cars[next(e.insert["vehicle_id"] for e in task.setup if e.table == "cabin_session")]
        calls = task.gold_calls()
        if not any(c.name == "set_navigation" for c in calls):
            continue
        for call in calls:
            if call.name == "search_places":
                key = (car.electric, call.arguments["category"])
                routed[key] = routed.get(key, 0) + 1
    assert not routed.get((False, "charger")) and not routed.get((True, "fuel_station")), routed
    assert routed.get((True, "charger")) and routed.get((False, "fuel_station")), routed


def test_a_car_is_no_older_than_its_model_and_has_driven_as_its_age_allows(domain):
    """A 2016 Kia EV6 and a 2016 BMW i4 were in the fleet (both first sold in 2021), and a car of this
    year could have 180,000 km on it."""
    from toolgym.domains.vehicle.world import FIRST_YEAR, KM_PER_YEAR, first_sold

    world = World(domain.template(0, "default"))
    try:
        cars = world.query("SELECT model, year, odometer_km FROM vehicle")
        today = world.now.date()
    finally:
        world.close()
    assert len(cars) > 20
    for model, year, km in cars:
        assert year >= FIRST_YEAR.get(model, 0), (model, year)
        assert km <= KM_PER_YEAR[1] * (today - first_sold(year)).days / 365, (model, year, km)
    assert {model for model, _, _ in cars} & set(FIRST_YEAR)


@pytest.mark.parametrize("seed", [0, 4, 11])
def test_a_service_log_begins_after_the_car_was_new_and_its_odometer_rises_with_time(domain, seed):
    """A 2025 Corolla with 6,070 km had visits in 2024, three of them at exactly 500 km (every earlier
    reading was clamped there)."""
    from toolgym.domains.vehicle.world import KM_PER_YEAR, first_sold

    world = World(domain.template(seed, "default"))
    try:
        cars = {vid: (year, km) for vid, year, km in world.query("SELECT id, year, odometer_km FROM vehicle")}
        visits = world.query("SELECT vehicle_id, date, odometer_km FROM service_record ORDER BY vehicle_id, date")
        today = world.now.date()
    finally:
        world.close()
    logs: dict[str, list[tuple[dt.date, int]]] = {}
    for vid, day, km in visits:
        logs.setdefault(vid, []).append((dt.date.fromisoformat(day), km))
    assert len(logs) > len(cars) / 2
    for vid, log in logs.items():
        year, now_km = cars[vid]
        assert first_sold(year) < log[0][0] and log[-1][0] < today, (vid, year, log)
        for (a, x), (b, y) in itertools.pairwise([*log, (today, now_km)]):
            assert x < y, (vid, year, log, now_km)
            # no car drives faster between two visits than twice the most a year's driving allows
            assert y - x <= 2 * KM_PER_YEAR[1] * (b - a).days / 365, (vid, year, log, now_km)


def test_an_electric_car_never_had_its_oil_changed(domain):
    """A 2024 Hyundai Ioniq 5's log read "oil and filter change": an electric motor takes no engine oil."""
    world = World(domain.template(4, "default"))
    try:
        works = world.query("SELECT v.powertrain, s.work FROM service_record s JOIN vehicle v ON v.id = s.vehicle_id")
    finally:
        world.close()
    assert {p for p, _ in works} == {"electric", "fuel"}
    assert not [w for p, w in works if p == "electric" and "oil" in w]
    assert [w for p, w in works if p == "fuel" and "oil" in w]


def test_a_terse_temperature_request_read_back_in_the_answer_is_no_echo(domain):
    """'The rear left zone: 27 °C.' answered 'Understood. 27 °C it is for the rear left zone.' failed its
    own no-echo check: the zone set is an output of the answer, so naming it is answering."""
    from toolgym.envs.gold import gold_messages
    from toolgym.verifiers import verify

    checked = 0
    for task in domain.generate_tasks(200, seed=3, kinds=["single"], size="small"):
        step = next((s for s in task.plan if s.calls and s.calls[0].name == "set_climate" and len(task.plan) == 1), None)
        if step is None or task.scenario.withheld:
            continue
        zone = next(o for o in task.required_outputs if o.endswith("zone"))
        degrees = next(o for o in task.required_outputs if "°" in o)
        messages = [dict(m) for m in gold_messages(domain, task)[0]]
        first = next(i for i, m in enumerate(messages) if m["role"] == "user")
        messages[first]["content"] = f"The {zone}: {degrees}."  # the terse driver's request
        last = max(i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("content"))
        messages[last]["content"] = f"Understood. {degrees} it is for the {zone}."
        assert verify(task, messages).components["no_echo"] == 1.0
        checked += 1
    assert checked >= 3, checked


def test_a_charge_limit_set_as_asked_is_reported_without_echoing_the_request(domain):
    """'Set the charge limit to 65%.' / 'I've set the charge limit to 65%.' failed its own no-echo check
    (configs/full.yaml met it once in 140,000 tasks): every report of a charge limit passes it."""
    from toolgym.envs.gold import gold_messages
    from toolgym.verifiers import verify

    task = next(t for t in domain.generate_tasks(300, seed=3, kinds=["single"], size="small")
                if [c.name for c in t.gold_calls()][-1:] == ["set_charge_limit"] and not t.scenario.withheld)
    percent = task.gold_calls()[-1].arguments["percent"]
    messages = [dict(m) for m in gold_messages(domain, task)[0]]
    first = next(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[first]["content"] = f"Set the charge limit to {percent}%."
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("content"))
    for seed in range(30):
        messages[last]["content"] = domain.phrasebook.say("reply_charge_limit", seed, percent=percent)
        assert verify(task, messages).components["no_echo"] == 1.0, messages[last]["content"]


def test_an_unsure_driver_opens_in_many_ways_and_never_says_car_twice():
    """"Hello there, car. I'm new to this car." opened 7 of 150 drives, the same words each time."""
    from toolgym.envs.registry import load_domain

    book = load_domain("vehicle").phrasebook
    openings = {book.say("opening@elderly", seed) for seed in range(400)}
    assert len(openings) >= 30, len(openings)
    assert not [o for o in openings if o.lower().count("car") > 1], openings


def test_a_cruise_speed_asked_in_mph_is_reported_beside_the_mph_asked(domain):
    """'Hold 46 mph on cruise.' answered only 'I've set cruise control at 75 km/h.': every report of a
    speed converted from mph names the mph asked for, alone or said with other results."""
    from toolgym.envs.gold import gold_messages

    for intent in ("reply_cruise", "result_cruise"):
        said = {domain.phrasebook.say(intent, seed, speed="75 km/h", said="46 mph") for seed in range(60)}
        assert len(said) >= 4 and all("46 mph" in s and "75 km/h" in s for s in said), said
        metric = {domain.phrasebook.say(intent, seed, speed="75 km/h", said="75 km/h") for seed in range(60)}
        assert all("mph" not in s and s.count("75 km/h") == 1 for s in metric), metric
    tasks = domain.generate_tasks(600, seed=6, kinds=["single", "parallel", "multi_step"], size="default")
    converted = [t for t in tasks if any(c.name == "convert_units" and c.arguments.get("from_unit") == "mph" for c in t.gold_calls())]
    assert len(converted) >= 3
    for task in converted:
        mph = next(c.arguments["value"] for c in task.gold_calls() if c.name == "convert_units")
        messages, verification = gold_messages(domain, task)
        reply = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")][-1]
        assert verification.passed and f"{mph} mph" in reply, reply


def test_getting_ready_to_drive_says_the_temperature_for_the_drivers_side_it_set(domain):
    """'Engine running, 23.5 °C inside' after set_climate(zone=driver): only the driver's zone was set,
    so the report names that side, never the whole cabin."""
    said = {domain.phrasebook.say("reply_ready", seed, name="City Airport", eta=20, temp="23.5 °C") for seed in range(80)}
    assert len(said) >= 3
    for text in said:
        assert "your side" in text or "driver's side" in text, text
        assert "inside" not in text and "cabin" not in text, text


def test_the_car_is_never_started_to_drive_while_it_charges(domain):
    """'Get me ready to drive to City International Airport ... Buckle up.', then 'That's enough charge,
    stop it.': the car was started at the charger while charging. A start (alone or readying a trip)
    is drawn only for a car not charging, and never in a chat that starts or stops charging."""
    from toolgym.domains.vehicle.tasks.index import index_of

    world = World(domain.template(0, "default"))
    try:
        cars = {c.id: c for c in index_of(world).cars}
    finally:
        world.close()
    started = 0
    for task in domain.generate_tasks(800, seed=13, kinds=["single", "multi_step", "multi_turn"], world_seed=0, size="default"):
        calls = {c.name for s in task.plan for c in s.calls}
        if "start_engine" not in calls:
            continue
        started += 1
        car = cars[next(e.insert["vehicle_id"] for e in task.setup if e.table == "cabin_session")]
        charging = car.v.charging or any(e.set.get("charging") for e in task.setup if e.table == "vehicle")
        assert not charging and not calls & {"start_charging", "stop_charging"}, (task.id, sorted(calls))
    assert started >= 20, started


def test_a_place_has_a_street_address_with_no_apartment_or_suite(domain):
    """'Westgate Airfield, 59414 Andrew Spring Apt. 714' and 'Scott Supercharger, 69247 Hobbs Locks
    Apt. 494': an airfield, a charger or a diner has a building number on a street, not a flat."""
    world = World(domain.template(0, "small"))
    try:
        addresses = [address for (address,) in world.query("SELECT address FROM place")]
    finally:
        world.close()
    assert len(addresses) > 50
    for address in addresses:
        number, _, street = address.partition(" ")
        assert number.isdigit() and not number.startswith("0") and street and not any(w in address for w in ("Apt.", "Suite")), address


def test_a_refusal_offers_what_the_rule_leaves_open(domain):
    """'Apologies, but I'm not able to do that, because the car can only charge when it's parked at a
    charger.' and a video refused while moving offered nothing: a refusal names the alternative a
    tool gives (the nearest charger, audio instead, the headlights on auto, the highest cruise speed)."""
    from toolgym.envs.gold import gold_messages

    offers = {"start_charging": "charger for you", "play_media": "radio or a podcast", "set_lights": "auto",
              "set_cruise_control": "130 km/h"}  # fmt: skip
    seen = set()
    # world 3's small fleet has an electric car parked away from a charger, so every refusal is drawn
    for task in domain.generate_tasks(60, seed=5, kinds=["no_tool/policy_refusal"], world_seed=3, size="small"):
        tool = task.forbidden[0].tool
        if tool not in offers:
            continue
        reply = next(m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content"))
        if tool == "set_lights" and "auto" in reply:  # offered only when the headlights are on, not on auto already
            seen.add(tool)
        elif tool != "set_lights":
            assert offers[tool] in reply, reply
            seen.add(tool)
    assert {"start_charging", "play_media", "set_cruise_control"} <= seen, seen


def test_what_the_driver_says_of_the_drive_fits_the_car(domain, index):
    """'Assistant? I'm about to set off. Volume to 100.' got 'The nearest volume I can use is 40.', and
    'Traffic's slow.' opened a chat in a parked car: the opening's words about the drive were drawn
    whatever the car was doing. A standing car's driver never speaks of traffic, a moving car's never
    of just getting in, and no one says they are about to set off."""
    standing = ("Traffic's slow.", "We're on our way.", "We're nearly there.", "This traffic is killing me.", "we're off on our little trip")
    moving = ("I've just got in.", "typing while parked", "We've only just parked.", "Just waiting here", "stopped for a little break")
    cars = {car.id: car for car in index.cars}
    said = {True: 0, False: 0}
    for task in domain.generate_tasks(150, seed=8, size="small"):
        car_id = next((edit.insert["vehicle_id"] for edit in task.setup if edit.table == "cabin_session" and edit.insert), None)
        if car_id is None:  # a request about no car (off topic)
            continue
        speed = next((e.set["speed_kmh"] for e in task.setup if e.table == "vehicle" and "speed_kmh" in (e.set or {})), cars[car_id].v.speed_kmh)
        first = task.scenario.requests[0]
        assert "about to set off" not in first, first
        assert not [w for w in (moving if speed > 0 else standing) if w in first], (speed, first)
        said[speed > 0] += any(w in first for w in (standing if speed > 0 else moving))
    assert said[True] and said[False], said


def test_a_driver_answers_the_question_not_its_label(domain):
    """'I'm not sure about the opening percentage yet.' and 'Here: My preferred station is Jazz FM.':
    the driver spoke the setting's label back. Asked for a setting, a driver gives it ('Jazz FM,
    please') or says they have not decided, in their own words."""
    from toolgym.envs.gold import gold_messages

    tasks = domain.generate_tasks(40, seed=4, kinds=["no_tool/missing_info"], size="small")
    tasks += [t for t in domain.generate_tasks(150, seed=4, kinds=["single", "multi_turn"], size="small")
              if any(f.key == "media_title" for f in t.scenario.facts)]  # fmt: skip
    answers = 0
    for task in tasks:
        labels = [*task.scenario.unknown, *(f.label for f in task.scenario.facts)]
        for message in gold_messages(domain, task)[0][2:]:
            if message["role"] == "user":
                assert not [label for label in labels if label in message["content"]], message["content"]
                answers += 1
    assert answers >= 20 and any(f.key == "media_title" for t in tasks for f in t.scenario.facts)


def test_a_driver_joins_two_requests_as_people_talk_to_a_car(domain):
    """'At the same time, something else. Can you put the volume on 20?', 'On top of that, this. How
    are the tyres?' and 'Then, a second thing: Navigate to Mills Trattoria.': nobody speaks to a car
    like this."""
    stiff = ("At the same time, something else.", "On top of that, this.", "Then, a second thing:", "Also this.", "Plus one more.")  # fmt: skip
    firsts = [t.scenario.requests[0] for t in domain.generate_tasks(150, seed=6, kinds=["parallel", "multi_step"], size="small")]
    joined = [f for f in firsts if any(link in f for link in domain.phrasebook.joining_links)]
    assert len(joined) >= 20 and not [f for f in firsts if any(s in f for s in stiff)]
