"""The exceptions toolgym raises, one place for all of them.

`ToolError` is the only one a model ever sees (as a tool message); the others are for the
people running toolgym and always name the bad value and what would be right.
"""

from __future__ import annotations

import difflib
import errno
from collections.abc import Iterable


class ToolgymError(Exception):
    """Base of every error toolgym raises on purpose."""


class ToolError(ToolgymError):
    """A tool's precondition failed (order already shipped, engine off).

    Raised inside a tool; the env turns it into a tool message `{"error": ...}` for the model.
    """


class DomainError(ToolgymError):
    """A domain is built wrongly: a tool without descriptions, a read tool that writes, ..."""


class GeneratorBug(ToolgymError):
    """A generated task's gold plan does not replay cleanly: a bug in its generator."""


class ConfigError(ToolgymError):
    """A config key or value is wrong."""


class UnknownNameError(ToolgymError, KeyError):
    """A name (domain, task, parser, verifier) that does not exist."""

    def __init__(self, what: str, name: str, known: Iterable[str]):
        known = sorted(known)
        self.what, self.name, self.known = what, name, known
        super().__init__(unknown_name_message(what, name, known))

    def __str__(self) -> str:  # KeyError would quote the whole message otherwise
        return self.args[0]


def unknown_name_message(what: str, name: str, known: Iterable[str]) -> str:
    """'unknown tool 'cancl_order'; did you mean 'cancel_order'? Known: ...'"""
    known = sorted(known)
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listing = ", ".join(known) if len(known) <= 30 else ", ".join(known[:30]) + ", ..."
    return f"unknown {what} {name!r}{hint} Known: {listing or '(none)'}"


_OS_CAUSES = {
    errno.ENOSPC: "no space left on the device (disk full): free space, then run the same command again",
    errno.EDQUOT: "disk quota exceeded: free space, then run the same command again",
    errno.EROFS: "the file system is read-only: choose a writable output directory (--out)",
    errno.EACCES: "permission denied: choose a directory you may write to (--out), or fix its permissions",
    errno.EPERM: "operation not permitted: choose a directory you may write to (--out)",
    errno.EEXIST: "a file of that name is in the way (a directory was expected): choose another --out",
    errno.ENOTDIR: "a part of the path is a file, not a directory: choose another --out",
    errno.EISDIR: "it is a directory, not a file",
    errno.ENOENT: "no such file or directory",
}


def describe_os_error(exc: OSError) -> str:
    """An OSError as one line: the path, and the cause in words with what to do."""
    cause = _OS_CAUSES.get(exc.errno or -1, exc.strerror or str(exc))
    path = exc.filename if exc.filename is not None else "(path unknown)"
    return f"{path}: {cause}" + (f" [{exc.strerror}]" if exc.strerror and exc.errno in _OS_CAUSES else "")
