"""Rewards a trainer can trust: the score's structure, no-tool replies that do one thing, episodes
that always end with a reward, and the gold through TRL's one-call-at-a-time loop."""

from __future__ import annotations

import copy

import pytest

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.envs.task import ACTION_KINDS, NO_TOOL_KINDS
from toolgym.integrations.trl import environment_class
from toolgym.verifiers import Composite, verify
from toolgym.verifiers.compose import ACTION_PRESET
from toolgym.verifiers.spoil import spoil_variants

from .conftest import builtin_domains

DOMAINS = builtin_domains()


def _gold(name: str, kind: str, seed: int = 3):
    domain = toolgym.load_domain(name)
    task = domain.generate_tasks(1, seed=seed, kinds=[kind])[0]
    return task, gold_messages(domain, task)[0]


def _last_reply(messages):
    return max(i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("content"))


@pytest.mark.parametrize("name", DOMAINS)
def test_a_conduct_violation_caps_the_score_and_the_cap_is_configurable(name):
    task, messages = _gold(name, "multi_step")
    assert verify(task, messages).value == 1.0
    spoiled = spoil_variants(task, messages)["stuffed_reply"]
    strict = verify(task, spoiled)
    assert strict.value == 0.0 and not strict.passed
    assert "no_echo" in strict.details["violations"]
    lenient = Composite(**{**ACTION_PRESET.spec(), "violation_cap": 0.3})
    assert 0.0 <= verify(task, spoiled, lenient).value <= 0.3


def test_doing_nothing_earns_nothing_for_what_it_did_not_break():
    domain = toolgym.load_domain("retail")
    read_only = 0
    for kind in ("single", "multi_step", "no_tool/irrelevant", "no_tool/policy_refusal"):
        for task in domain.generate_tasks(6, seed=3, kinds=[kind]):
            messages, _ = gold_messages(domain, task)
            first_user = next(i for i, m in enumerate(messages) if m["role"] == "user")
            nothing = verify(task, [*messages[: first_user + 1], {"role": "assistant", "content": "OK."}])
            assert nothing.value == 0.0 and not nothing.passed, kind
            if not task.expected_writes:
                read_only += 1
                assert nothing.components["end_state"] == 1.0  # nothing broken, and still no credit for it
    assert read_only >= 12


def test_honest_partial_attempt_scores_above_violations_and_below_gold():
    task, messages = _gold("retail", "multi_step")
    writes = {t.name for t in toolgym.load_domain("retail").tools.values() if t.writes}
    cut = next(i for i, m in enumerate(messages) if any(c["function"]["name"] in writes for c in m.get("tool_calls") or []))
    partial = verify(task, [*messages[:cut], {"role": "assistant", "content": "I still need to finish this; one moment."}])
    assert 0.0 < partial.value < 1.0 and not partial.passed
    assert not partial.details.get("violations")
    assert partial.value > verify(task, spoil_variants(task, messages)["no_consent"]).value


@pytest.mark.parametrize("kind", NO_TOOL_KINDS)
def test_stuffed_and_echoed_no_tool_replies_fail_in_every_domain(kind):
    for name in DOMAINS:
        task, messages = _gold(name, kind)
        assert verify(task, messages).value == 1.0
        for spoil in ("stuffed_reply", "echoed_user"):
            score = verify(task, spoil_variants(task, messages)[spoil])
            assert score.value < 1.0 and not score.passed, (name, spoil)


def test_a_no_tool_reply_that_declines_and_asks_at_once_fails_but_honest_wordings_pass():
    task, messages = _gold("retail", "no_tool/irrelevant")
    at = _last_reply(messages)

    def said(text):
        chat = copy.deepcopy(messages[: at + 1])
        chat[at]["content"] = text
        return verify(task, chat)

    assert said(messages[at]["content"]).passed
    honest = "Sorry, that's not something I can do. I can help with orders, returns, exchanges, payments, your account and our product catalog."
    assert said(honest).value == 1.0
    mixed = honest + " Could you tell me your email address?"
    assert not said(mixed).passed and said(mixed).value == 0.0
    assert said("Sorry, I can't help with that.").value < 1.0  # declines, but without the scope: partial


def test_reply_content_gives_partial_credit_per_requirement():
    task, messages = _gold("retail", "no_tool/irrelevant")
    at = _last_reply(messages)
    chat = copy.deepcopy(messages[: at + 1])
    chat[at]["content"] = "Sorry, I can't help with that."
    score = verify(task, chat)
    assert score.components["reply_content"] == 0.5


@pytest.mark.parametrize("name", DOMAINS)
def test_every_do_nothing_episode_ends_with_its_reward_on_the_last_step(name):
    env = toolgym.make(name)
    for seed in range(10):
        env.reset(seed=seed)
        steps, terminated, truncated = 0, False, False
        while not (terminated or truncated) and steps < 40:
            _, reward, terminated, truncated, info = env.step({"role": "assistant", "content": "OK."})
            steps += 1
        assert terminated and not truncated, f"seed {seed}: the user never left"
        assert steps <= 6 and "verification" in info
        assert reward == info["verification"]["score"] < 1.0


def test_grade_scores_the_conversation_so_far_without_ending_it():
    task, messages = _gold("retail", "single")
    env = toolgym.make("retail")
    env.reset(options={"task": task})
    assert env.grade().value < 1.0 and env.verification is None
    for message in messages[2:]:
        if message["role"] == "assistant":
            _, reward, terminated, _, info = env.step(message)
    assert terminated and reward == 1.0 and env.grade() is env.verification


def _play_through_trl(task, messages):
    """The gold chat as TRL plays it: each tool call a separate method call, text through the user channel."""
    domain = toolgym.load_domain(task.domain)
    withheld = [t.name for t in domain.agent_tools if t.name not in set(task.tools)]
    env = environment_class(task.domain, withheld=withheld)()
    env.reset(task=task.model_dump(mode="json"), prompt=True)
    for message in messages:
        if message["role"] != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            getattr(env, call["function"]["name"])(**call["function"]["arguments"])
        if message.get("content"):
            env.send_message_to_user(message["content"])
    return env


def test_gold_through_trls_one_call_at_a_time_loop_scores_one_on_every_acting_kind():
    played = 0
    for name in DOMAINS:
        domain = toolgym.load_domain(name)
        for kind in ACTION_KINDS:
            for task in domain.generate_tasks(4, seed=11, kinds=[kind]):
                messages, _ = gold_messages(domain, task)
                env = _play_through_trl(task, messages)
                assert env.get_reward() == 1.0, (name, kind, env.last_verification.details)
                assert env.last_verification.passed
                lazy = _play_through_trl(task, [{"role": "assistant", "content": "OK."}])
                assert lazy.get_reward() < 1.0 and not lazy.last_verification.passed
                played += 1
    assert played == 20 * len(DOMAINS)


def test_a_trainer_may_soften_the_violation_cap_in_the_env_and_the_trl_class():
    import pickle

    task, messages = _gold("retail", "multi_step")
    rash = spoil_variants(task, messages)["no_consent"]
    strict, soft = _play_through_trl(task, rash), None
    assert strict.get_reward() == 0.0 and "consent" in strict.last_verification.details["violations"]
    domain = toolgym.load_domain("retail")
    soft_class = environment_class("retail", violation_cap=0.4, withheld=[t.name for t in domain.agent_tools if t.name not in set(task.tools)])
    soft = soft_class()
    soft.reset(task=task.model_dump(mode="json"), prompt=True)
    for message in rash:
        if message["role"] == "assistant":
            for call in message.get("tool_calls") or []:
                getattr(soft, call["function"]["name"])(**call["function"]["arguments"])
            if message.get("content"):
                soft.send_message_to_user(message["content"])
    assert 0.0 < soft.get_reward() <= 0.4 and not soft.last_verification.passed
    assert pickle.loads(pickle.dumps(soft)).get_reward() == soft.get_reward()
    with pytest.raises(toolgym.ConfigError, match="violation_cap"):
        toolgym.make("retail", violation_cap=1.5)


def test_trl_reward_functions_log_passed_violations_and_components():
    from toolgym.verifiers.rewards import environment_reward

    task, messages = _gold("retail", "multi_step")
    gold, rash = _play_through_trl(task, messages), _play_through_trl(task, spoil_variants(task, messages)["no_consent"])
    metrics, extra = {}, {}
    rewards = environment_reward(environments=[gold, rash], log_metric=metrics.__setitem__, log_extra=extra.__setitem__)
    assert rewards == [1.0, 0.0]
    assert metrics["toolgym/passed"] == 0.5 and metrics["toolgym/violation"] == 0.5
    assert metrics["toolgym/consent"] == 0.5 and metrics["toolgym/end_state"] == 1.0
    assert extra["toolgym_passed"] == [True, False] and extra["toolgym_violations"] == ["", "consent"]
