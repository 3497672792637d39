"""Near-duplicate texts: MinHash LSH finds candidate pairs, exact 5-gram Jaccard confirms them.

Identical shingle sets are grouped first (they are duplicates without any comparison), so LSH
only indexes distinct sets; a candidate pair is kept only if its true Jaccard reaches the bar.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cache

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
        lsh = MinHashLSH(num_perm=_PERMUTATIONS, params=_bands())
        hashes = MinHash.bulk([[s.encode() for s in sorted(d)] for d in distinct], num_perm=_PERMUTATIONS)
        for key, minhash in enumerate(hashes):
            lsh.insert(key, minhash)
        for key, minhash in enumerate(hashes):
            if flagged[key]:
                continue  # already known to have a partner; whether others match it is checked from their side
            for other in lsh.query(minhash):
                if other != key and jaccard(set(distinct[key]), set(distinct[other])) >= threshold:
                    flagged[key] = flagged[other] = True
                    break
    result = [False] * len(texts)
    for shingle_set, flag in zip(distinct, flagged, strict=True):
        for index in groups[shingle_set]:
            result[index] = flag
    return result


def near_duplicate_rate(texts: Sequence[str], threshold: float = 0.8) -> float:
    flags = near_duplicate_flags(texts, threshold)
    return sum(flags) / len(flags) if flags else 0.0
