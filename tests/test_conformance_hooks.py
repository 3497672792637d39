"""The conformance module itself: ground-truth checks report what they find, a crashing check is a failure."""

from __future__ import annotations

from toolgym import conformance


def test_ground_truth_checks_report_what_their_functions_find(toy_domain, monkeypatch):
    from toolgym.envs import grounding
    from toolgym.verifiers import spoil

    options = conformance.Options(tasks_per_kind=4, kinds=("single",))
    monkeypatch.setattr(spoil, "spoil_failures", lambda name, tasks: [f"{t.id}: 'OK.' scored 1.0" for t in tasks])
    monkeypatch.setattr(grounding, "ungrounded_facts", lambda messages: ["$9.99"])
    findings = conformance.run(toy_domain, options, only=["spoil", "grounding"])
    assert [(f.check, f.kind, f.checked) for f in findings] == [("spoil", "single", 5), ("grounding", "single", 4)]
    assert [len(f.failures) for f in findings] == [5, 4]  # spoil takes at least 5 tasks per kind
    assert "ungrounded ['$9.99']" in findings[1].failures[0]
    lines: list[str] = []
    assert not conformance.report("toy", findings, lines.append)
    assert lines[-1] == "FAILED: 0 passed, 2 failed, 0 skipped"


def test_a_check_that_raises_is_a_failure_not_a_traceback(toy_domain, monkeypatch):
    def broken(domain, options):
        raise RuntimeError("boom")
        yield

    monkeypatch.setitem(conformance.CHECKS, "broken", broken)
    [finding] = conformance.run(toy_domain, conformance.Options(), only=["broken"])
    assert finding.failures == ["the check raised RuntimeError: boom"]


def test_language_check_names_grammar_slips_and_stock_openings(toy_domain, monkeypatch):
    from types import SimpleNamespace

    chat = SimpleNamespace(messages=[
        {"role": "user", "content": "Please check on on my order."},
        {"role": "assistant", "content": "Your Visa card ending in 4242 was charged."},
    ])
    monkeypatch.setattr(conformance, "_rollout", lambda domain, task: chat)  # every task opens alike
    [finding] = conformance.run(toy_domain, conformance.Options(tasks_per_kind=40, kinds=("single",)), only=["language"])
    assert finding.checked == 20
    assert any(f.startswith("doubled_word in 20 turn(s)") for f in finding.failures), finding.failures
    assert any(f.startswith("card_doubled in 20 turn(s)") for f in finding.failures), finding.failures
    assert "only 1 of 20 openings are distinct (at least 80% wanted)" in finding.failures


def test_language_check_passes_varied_clean_chats(toy_domain, monkeypatch):
    from types import SimpleNamespace

    things = iter("lamp desk sofa chair rug vase clock mirror shelf bed stool bench crib cot tray jar mug bowl pan pot".split())
    monkeypatch.setattr(conformance, "_rollout", lambda domain, task: SimpleNamespace(messages=[
        {"role": "user", "content": f"Please look at my {next(things)} order today, it is late."},
        {"role": "assistant", "content": "It ships tomorrow."},
    ]))
    [finding] = conformance.run(toy_domain, conformance.Options(tasks_per_kind=40, kinds=("single",)), only=["language"])
    assert finding.checked == 20 and finding.passed, finding.failures


def test_the_phrasings_check_reads_an_output_as_the_verifier_does():
    """A statement month is the output '2025-03' and replies say 'the March 2025 statement': the check
    compared the words literally and failed banking where the verifier pays."""
    findings = conformance.run("banking", conformance.Options(tasks_per_kind=200), only=["phrasings"])
    assert sum(f.checked for f in findings) >= 100
    assert not [failure for f in findings for failure in f.failures]
