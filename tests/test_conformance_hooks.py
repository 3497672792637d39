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
