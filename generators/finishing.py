"""The driver's side of the two phases of a draw (worker.py): which made draws to finish, and the
plan's tasks in plan order once finished.

Made outcomes go to the resolver; every one the plan takes is finished (rolled out, rows built)
unless its rows were written by an earlier run of the job (`done`: resumed). Finished outcomes
come back in any order; `finished` hands them on in plan order, so the writer sees the plan
exactly as one process walking it would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

from .resolver import PlanResolver
from .worker import Draw, Outcome


class FinishOrder:
    def __init__(self, resolver: PlanResolver, done: Collection[str] = ()):
        self.resolver = resolver
        self.done = done
        self._order: deque[Outcome] = deque()  # the plan's tasks, in plan order, not handed on yet
        self._unfinished: dict[Draw, Outcome] = {}  # of those, the ones sent to be finished

    @property
    def complete(self) -> bool:
        """The plan is walked and every task of it handed on."""
        return self.resolver.finished and not self._order

    @property
    def unfinished(self) -> int:
        return len(self._unfinished)

    def made(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Take made outcomes; those the plan now takes and that must be finished, in plan order."""
        self.resolver.add(outcomes)
        todo = []
        for outcome in self.resolver.resolved():
            self._order.append(outcome)
            if outcome["task_id"] in self.done:
                outcome["skipped"] = True  # written by an earlier run of the job: made for its id only
            else:
                self._unfinished[outcome["draw"]] = outcome
                todo.append(outcome)
        return todo

    def finished(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Take finished outcomes; the plan's next tasks, in plan order, now that nothing before them waits."""
        for outcome in outcomes:
            made = self._unfinished.pop(outcome["draw"], None)
            if made is None:
                raise RuntimeError(f"draw {outcome['draw']} was finished but never sent to be finished")
            made.update(outcome)
        ready = []
        while self._order and self._order[0]["draw"] not in self._unfinished:
            ready.append(self._order.popleft())
        return ready
