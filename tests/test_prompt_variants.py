"""System prompt variants: the same rules in many wordings around them; the world's own clock."""

from __future__ import annotations

import datetime as dt
import re

from toolgym.envs.prompt import draw_variant, reorder_sections, with_tone
from toolgym.envs.registry import list_domains, load_domain

POLICY = "# Policy\n\nYou help with orders.\n\n## Identify\n- Ask for the email.\n\n## Orders\n- Cancel only pending ones.\n\n## Safety\n- Never share ids.\n"


def _sections(text: str) -> list[str]:
    return sorted(part.strip() for part in re.split(r"\n(?=## )", text)[1:])


def test_reordering_keeps_every_section_word_for_word_and_the_opening_first():
    orders = {reorder_sections(POLICY, seed) for seed in range(30)}
    assert len(orders) == 6  # all orders of three sections come up
    for text in orders:
        assert text.startswith("# Policy\n\nYou help with orders.")
        assert _sections(text) == _sections(POLICY)


def test_the_tone_line_goes_after_the_opening():
    text = with_tone(POLICY, "Be brief.")
    assert text.index("You help with orders.") < text.index("Be brief.") < text.index("## Identify")
    assert with_tone(POLICY, "") == POLICY


def test_a_variant_writes_the_worlds_own_date_and_time():
    now = dt.datetime(2025, 3, 14, 15, 5)
    texts = {tuple(draw_variant(v, ["Acme", "Zenith"], 3).names(now).items()) for v in range(200)}
    dates = {dict(t)["today_text"] for t in texts}
    assert {"2025-03-14", "Friday, March 14, 2025", "14 March 2025"} <= dates
    assert {dict(t)["now_text"] for t in texts} == {"15:05", "3:05 PM"}
    assert {dict(t)["brand"] for t in texts} == {"Acme", "Zenith"}
    assert draw_variant(7, None, 3).names(now)["brand"] is None


def test_each_domain_has_many_prompts_with_the_same_rules():
    for name in list_domains():
        domain = load_domain(name)
        if len(_sections(domain.policy())) < 2:
            continue
        plain = domain.policy()
        variants = {domain.policy(variant=v) for v in range(40)}
        assert len(variants) >= 30, name
        for text in variants:
            assert _sections(text) == _sections(plain), name
        assert domain.policy(variant=5) == domain.policy(variant=5 + 512)  # folded onto PROMPT_VARIANTS


def test_the_env_gives_each_task_its_variant(toy_domain):
    from toolgym.envs.env import ToolEnv

    tasks = toy_domain.generate_tasks(6, seed=0, kinds=["single"], size="small")
    env = ToolEnv(toy_domain)
    prompts = []
    for task in tasks:
        observation, _ = env.reset(options={"task": task})
        prompts.append(observation[0]["content"])
        assert observation[0]["content"] == toy_domain.policy(task.world_seed, task.world_size, variant=task.seed)
    assert len(set(prompts)) > 1


def test_a_clock_by_world_seed_gives_each_world_its_own_date(toy_domain):
    from toolgym.envs.domain import Domain

    domain = Domain(
        name="toyclock", version=0, description=toy_domain.description, scope=toy_domain.scope, folder=toy_domain.folder,
        tables=toy_domain.tables, build_world=toy_domain.build_world, tools=list(toy_domain.tools.values()),
        generators=toy_domain.generators, now=lambda seed: dt.datetime(2025, 1, 15, 12, 0) + dt.timedelta(days=seed),
    )
    assert domain.now == dt.datetime(2025, 1, 15, 12, 0)  # the default world (seed 0)
    assert domain.template(3, "small").now == dt.datetime(2025, 1, 18, 12, 0)
    assert "2025-01-18" in domain.policy(3, "small") and "2025-01-15" in domain.policy(0, "small")
