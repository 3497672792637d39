"""Near-duplicate texts: MinHash LSH finds candidate pairs, exact 5-gram Jaccard confirms them.

Identical shingle sets are grouped first (they are duplicates without any comparison), so LSH
only indexes distinct sets; a candidate pair is kept only if its true Jaccard reaches the bar.
The LSH's buckets are those of datasketch's MinHashLSH (two sets are candidates when one band of
their signatures is equal), found by sorting the bands of all signatures at once with numpy: the
same candidates as inserting and querying one set at a time, ~10x faster (a job's card checks
every opening it wrote).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cache

import numpy as np
from datasketch import MinHash, MinHashLSH

from .text import jaccard, normalize, shingles

_PERMUTATIONS = 128
_LSH_THRESHOLD = 0.6  # below the bar, so pairs just above it are rarely missed


@cache
def _bands() -> tuple[int, int]:
    """The LSH's (bands, rows per band) for the threshold: datasketch finds them by numerical
    integration (~40 ms), the same every time, so once per process rather than once per group."""
    lsh = MinHashLSH(threshold=_LSH_THRESHOLD, num_perm=_PERMUTATIONS)
    return lsh.b, lsh.r


def near_duplicate_flags(texts: Sequence[str], threshold: float = 0.8, ngram: int = 5) -> list[bool]:
    """For each text: does another text in the list have 5-gram Jaccard >= threshold (after normalizing)?"""
    groups: dict[frozenset[str], list[int]] = defaultdict(list)
    for index, text in enumerate(texts):
        groups[frozenset(shingles(normalize(text), ngram))].append(index)
    distinct = list(groups)
    flagged = [len(groups[s]) > 1 for s in distinct]
    if len(distinct) > 1:
        hashes = MinHash.bulk([[s.encode() for s in sorted(d)] for d in distinct], num_perm=_PERMUTATIONS)
        buckets = _buckets(np.stack([h.hashvalues for h in hashes]))
        for key in range(len(distinct)):
            if flagged[key]:
                continue  # already known to have a partner; whether others match it is checked from their side
            own = set(distinct[key])
            for bucket in buckets[key]:
                other = next((o for o in bucket if o != key and jaccard(own, set(distinct[o])) >= threshold), None)
                if other is not None:
                    flagged[key] = flagged[other] = True
                    break
    result = [False] * len(texts)
    for shingle_set, flag in zip(distinct, flagged, strict=True):
        for index in groups[shingle_set]:
            result[index] = flag
    return result


def _buckets(signatures: np.ndarray) -> list[list[list[int]]]:
    """For each signature, the LSH buckets it shares with others (one per band whose values another has too)."""
    bands, rows = _bands()
    found: list[list[list[int]]] = [[] for _ in range(len(signatures))]
    for band in range(bands):
        values = np.ascontiguousarray(signatures[:, band * rows : (band + 1) * rows])
        keys = values.view(np.dtype((np.void, values.dtype.itemsize * rows))).ravel()
        _, group, counts = np.unique(keys, return_inverse=True, return_counts=True)
        members: dict[int, list[int]] = defaultdict(list)
        for position in np.flatnonzero(counts[group] > 1):
            members[int(group[position])].append(int(position))
        for bucket in members.values():
            for member in bucket:
                found[member].append(bucket)
    return found


def near_duplicate_rate(texts: Sequence[str], threshold: float = 0.8) -> float:
    flags = near_duplicate_flags(texts, threshold)
    return sum(flags) / len(flags) if flags else 0.0
