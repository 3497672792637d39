"""The conformance module itself: hooks run when their function exists, failures are reported."""

from __future__ import annotations

import sys
import types

from toolgym import conformance


def test_hooks_skip_without_their_module_and_run_with_it(toy_domain, monkeypatch):
    options = conformance.Options(tasks_per_kind=4, kinds=("single",))
    if "toolgym.verifiers.spoil" not in sys.modules:
        skipped = conformance.run(toy_domain, options, only=["spoil"])
        assert skipped[0].skipped and not skipped[0].passed
    spoil = types.ModuleType("toolgym.verifiers.spoil")
    spoil.spoil_failures = lambda name, tasks: [f"{t.id}: 'OK.' scored 1.0" for t in tasks]
    grounding = types.ModuleType("toolgym.envs.grounding")
    grounding.ungrounded_facts = lambda messages: ["$9.99"]
    monkeypatch.setitem(sys.modules, "toolgym.verifiers.spoil", spoil)
    monkeypatch.setitem(sys.modules, "toolgym.envs.grounding", grounding)
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
