"""The driver's side of a job: which draws to make, and the plan's tasks, in order, from their outcomes.

Workers make draws in any order and anywhere (worker.py); the plan is the one a single process
walking the streams one after another would give (planning.iter_planned), so rows, resume and
the dataset do not depend on the executor or the number of workers. Walking a stream: draw
`index` at attempt 0; a lesson this stream gave already is drawn again at the next attempt
(after MAX_ATTEMPTS, the first new id among them is taken); a lesson an earlier stream gave is
dropped (with `output.dedup`), as is a task of an eval set held out from training (`held_out`),
and a draw whose generator raised when the job skips generator bugs (`failures.generator_bugs`),
and the stream draws one index more, up to its cap, until it has its share. Draws are asked for ahead (every stream's share at once, a batch at a time); what the
walk finds missing (another attempt, an index more) is asked for first.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from toolgym.envs.generation import MAX_ATTEMPTS, too_few_distinct
from toolgym.envs.registry import load_domain

from .evaluation.held_out import HeldOut
from .planning import Stream, nearest_fill
from .worker import Draw, Outcome


@dataclass
class _Walk:
    """Where the walk of one stream is."""

    stream: Stream
    index: int = 0  # the draw being resolved
    attempt: int = 0
    asked: int = 0  # draws 0..asked-1 (attempt 0) have been asked for
    given: int = 0
    lessons: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    fallback: Outcome | None = None  # the first new id among repeated lessons at this index
    quotas: dict[int, int] | None = None  # mix.difficulty: tasks still wanted per level
    spare: list[Outcome] = field(default_factory=list)  # draws of full levels, for the levels never reached

    def __post_init__(self) -> None:
        if self.stream.quotas is not None:
            self.quotas = dict(self.stream.quotas)

    def has_room(self, outcome: Outcome) -> bool:
        """With a difficulty mix: whether the outcome's level still wants tasks (it takes one); else kept aside."""
        if self.quotas is None:
            return True
        level = outcome.get("level") or 1
        if self.quotas.get(level, 0) <= 0:
            if len(self.spare) < self.stream.share:
                self.spare.append(outcome)
            return False
        self.quotas[level] -= 1
        return True

    @property
    def complete(self) -> bool:
        return self.given >= self.stream.share or self.index >= self.stream.cap


class PlanResolver:
    """Hands out batches of draws and turns outcomes into the plan's tasks in plan order.

    `next_batch()` gives the draws to make next (urgent ones first); `add(outcomes)` takes what
    workers made; `resolved()` yields, in plan order, every outcome the plan takes, as soon as
    everything before it is known. A draw whose making raised re-raises here when the plan reaches it.
    """

    def __init__(self, streams: list[Stream], *, dedup: bool, batch_size: int, ahead: int,
                 held_out: HeldOut | None = None, skip_bugs: bool = False):
        self.streams = streams
        self.dedup = dedup
        self.skip_bugs = skip_bugs
        self.bugs: list[dict[str, object]] = []  # draws whose generator raised and the plan skipped, in plan order
        self.held_out = held_out
        self.batch_size = max(1, batch_size)
        self.ahead = max(ahead, self.batch_size)  # draws asked for and not yet resolved, at most (urgent ones go anyway)
        self._walks = [_Walk(s) for s in streams]
        self._current = 0  # the stream being walked; earlier ones are complete
        self._asked: set[Draw] = set()  # asked for and not resolved
        self._made: dict[Draw, Outcome] = {}  # made and not resolved
        self._urgent: deque[Draw] = deque()
        self._next_stream = 0  # the first stream whose share is not all asked for yet
        self.left_to_ask = sum(min(s.share, s.cap) for s in streams)  # draws of the shares not asked for yet
        self._seen: set[str] = set()  # lessons the plan took (dedup)

    @property
    def finished(self) -> bool:
        """Every stream is walked: nothing more will be yielded or asked for."""
        return self._current >= len(self._walks)

    @property
    def waiting(self) -> int:
        """Draws asked for whose outcome has not come."""
        return len(self._asked) - len(self._made)

    # ---- handing out work ------------------------------------------------------------------------
    def next_batch(self, size: int | None = None, prefer: Callable[[Stream], bool] | None = None) -> list[Draw]:
        """The next draws to make (at most `size`, default batch_size); empty when there is nothing to ask
        for until more outcomes come.

        `prefer`: draws of streams it accepts are handed out first, from anywhere in the plan's
        window (a worker asks for the worlds it has built); failing those, the plan's next draws.
        It is asked only about streams with draws left to hand out, and each it accepts gives some.
        """
        size = size or self.batch_size
        if self._urgent:
            return [self._urgent.popleft() for _ in range(min(size, len(self._urgent)))]
        room = min(size, self.ahead - len(self._asked))
        batch: list[Draw] = []
        if prefer is not None:
            for number in range(self._next_stream, len(self._walks)):
                if len(batch) >= room:
                    break
                walk = self._walks[number]
                if number >= self._current and walk.asked < min(walk.stream.share, walk.stream.cap) and prefer(walk.stream):
                    self._take(number, room, batch)
        while len(batch) < room and self._next_stream < len(self._walks):
            walk = self._walks[self._next_stream]
            if self._next_stream < self._current or walk.asked >= min(walk.stream.share, walk.stream.cap):
                self._next_stream += 1
                continue
            self._take(self._next_stream, room, batch)
        return batch

    def _take(self, number: int, room: int, batch: list[Draw]) -> None:
        """Ask for the stream's next share draws, filling the batch up to `room`."""
        walk = self._walks[number]
        while len(batch) < room and walk.asked < min(walk.stream.share, walk.stream.cap):
            batch.append(self._ask((number, walk.asked, 0)))
            walk.asked += 1
            self.left_to_ask -= 1

    def _ask(self, spec: Draw) -> Draw:
        self._asked.add(spec)
        return spec

    def _ask_first(self, spec: Draw) -> None:
        if spec not in self._asked:
            self._urgent.append(self._ask(spec))

    # ---- taking outcomes -------------------------------------------------------------------------
    def add(self, outcomes: list[Outcome]) -> None:
        for outcome in outcomes:
            spec = outcome["draw"]
            if spec in self._asked:  # not an extra draw of a stream already complete
                self._made[spec] = outcome

    def resolved(self) -> Iterator[Outcome]:
        """The plan's next tasks whose place is settled, in plan order."""
        while self._current < len(self._walks):
            walk = self._walks[self._current]
            if walk.complete:
                if walk.quotas is not None and walk.given < walk.stream.share:  # levels not reached: the nearest drawn
                    for outcome in nearest_fill(walk.stream, walk.quotas, walk.spare, lambda o: o.get("level") or 1):
                        if self.dedup:
                            self._seen.add(outcome["lesson"])
                        yield outcome
                self._close(self._current)
                self._current += 1
                continue
            if walk.index >= walk.asked:  # the share is drawn and some were dropped: draw on, as many as missing
                more = min(walk.stream.cap, walk.asked + walk.stream.share - walk.given)
                for index in range(walk.asked, more):
                    self._ask_first((self._current, index, 0))
                self.left_to_ask -= max(0, min(more, walk.stream.share) - walk.asked)  # share draws asked here
                walk.asked = more
            spec = (self._current, walk.index, walk.attempt)
            self._ask_first(spec)
            outcome = self._made.pop(spec, None)
            if outcome is None:
                return  # not made yet
            self._asked.discard(spec)
            if self.skip_bugs and outcome.get("error") is not None:
                self.bugs.append(_bug(walk.stream, spec, outcome["error"]))
                walk.index, walk.attempt, walk.fallback = walk.index + 1, 0, None
                continue  # no task at this index: the stream draws on
            chosen = self._choose(walk, outcome)
            if chosen is None:
                continue  # the same index at its next attempt
            walk.index, walk.attempt, walk.fallback = walk.index + 1, 0, None
            walk.ids.add(chosen["task_id"])
            walk.lessons.add(chosen["lesson"])
            if self.held_out is not None and self.held_out.excludes_key(chosen["task_id"], chosen["lesson"], _where(chosen)):
                continue  # an eval set's task never trains: dropped (or the job refused), the stream draws on
            if self.dedup and chosen["lesson"] in self._seen:
                continue  # an earlier stream gave this lesson: dropped, the stream draws on
            if not walk.has_room(chosen):
                continue  # mix.difficulty: its level is full
            if self.dedup:
                self._seen.add(chosen["lesson"])
            walk.given += 1
            yield chosen

    def _choose(self, walk: _Walk, outcome: Outcome) -> Outcome | None:
        """The outcome this index takes, or None to draw it again at the next attempt."""
        error = outcome.get("error")
        if error is not None:
            raise error
        if outcome["lesson"] not in walk.lessons:
            return outcome  # a task unlike any this stream gave
        if walk.fallback is None and outcome["task_id"] not in walk.ids:
            walk.fallback = outcome  # the same lesson in other words: taken only if nothing new turns up
        walk.attempt += 1
        if walk.attempt < MAX_ATTEMPTS:
            self._ask_first((self._current, walk.index, walk.attempt))
            return None
        if walk.fallback is None:
            stream = walk.stream
            raise too_few_distinct(load_domain(stream.domain), len(walk.ids), [stream.kind], stream.size)
        return walk.fallback

    def _close(self, number: int) -> None:
        """A stream is complete: forget its extra draws (asked for, made or on their way) and its own lessons."""
        walk = self._walks[number]
        walk.lessons, walk.ids, walk.fallback = set(), set(), None
        extra = [spec for spec in self._asked if spec[0] == number]
        for spec in extra:
            self._asked.discard(spec)
            self._made.pop(spec, None)
        self._urgent = deque(spec for spec in self._urgent if spec[0] != number)


def _where(outcome: Outcome) -> str:
    return f"task {outcome['task_id']} ({outcome['domain']}/{outcome['kind']})"


def _bug(stream: Stream, spec: Draw, error: BaseException) -> dict[str, object]:
    """A skipped draw as recorded: enough to make it again (`toolgym.envs.generation.draw`) and see the bug."""
    _, index, attempt = spec
    return {"domain": stream.domain, "kind": stream.kind, "world_seed": stream.world_seed, "size": stream.size,
            "stream_seed": stream.seed, "index": index, "attempt": attempt, "error": f"{type(error).__name__}: {error}"}
