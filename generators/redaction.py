"""Secrets out of every text that is written or printed: keys, URL credentials, echoed headers.

Keys in use are remembered when a client resolves its connection (`remember`), so a server
that echoes one back in an error is caught whatever its shape; known shapes (Bearer tokens,
`sk-...` keys, `user:password@` in URLs) are caught without that, and so is any value named by a
secret-sounding key (one containing key, token, secret, password, authorization or credential):
`name: value` and `name=value` in text (`scrub`), and dict entries at any depth (`mask_value`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

MASK = "[redacted]"
_MIN_SECRET = 4  # shorter values are too likely to be ordinary words to mask everywhere
_KNOWN: set[str] = set()
_DIGIT = re.compile(r"\d")
# Every pattern is linear in the text (error bodies may be megabytes): a match starts only at the
# start of its word, and what it reads is read once (possessive `*+`), never rescanned from inside.
_PATTERNS = [
    (re.compile(r"(?i)\b(authorization|x-api-key|api-key|proxy-authorization)(\"?\s*[:=]\s*\"?)(bearer\s+|basic\s+)?[^\s\"',;}]+"),
     lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{MASK}"),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]+"), lambda m: f"Bearer {MASK}"),
    # key-shaped: sk- and 6 more characters, or another known prefix and a token with a digit
    # in it (so `hf_dataset` stays a word)
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), lambda m: MASK),
    (re.compile(r"\b(?:sk|hf|ghp|gho|xox[bp])[-_][A-Za-z0-9_\-]{3,}+"), lambda m: MASK if _DIGIT.search(m[0], 3) else m[0]),
    (re.compile(r"(?i)(?<![a-z0-9+.\-])([a-z][a-z0-9+.\-]*+://)[^/\s@:]*+:[^/\s@]*+@"), lambda m: f"{m.group(1)}{MASK}@"),
    (re.compile(r"(?i)(?<![a-z0-9+.\-])([a-z][a-z0-9+.\-]*+://)[^/\s@:]++@"), lambda m: f"{m.group(1)}{MASK}@"),
]
_SECRET_WORD = r"(?:key|token|secret|passw(?:or)?d|authorization|credential)"
SECRET_NAME = re.compile(_SECRET_WORD, re.IGNORECASE)
# `name: value`, `name=value`, `'name': 'value'`, `"name": "value"` where the name holds a secret word
_NAMED = re.compile(  # a name is read whole, from its first character, and looked into once
    r"(?i)(?<![\w.\-])(?=[\w.\-]*?" + _SECRET_WORD + r")(?P<name>[\w.\-]++)(?P<quote>[\"']?)(?P<sep>\s*[:=]\s*)"
    r"(?P<open>[\"']?(?:bearer\s+|basic\s+)?)"
    r"(?P<value>[^\s\"',;}\]&)]+)"
)
# What a usage hint writes where a value goes ("--set takes key=value"): not a secret to hide.
_PLACEHOLDERS = frozenset({"value", "<value>", "...", "…", "***", MASK.lower(), "none", "null"})


def _masked_named(match: re.Match[str]) -> str:
    value = match["value"]
    if value.rstrip(":.").lower() in _PLACEHOLDERS or value.startswith(MASK[:-1]) or _is_count(match["name"], value):
        return match[0]
    return f"{match['name']}{match['quote']}{match['sep']}{match['open']}{MASK}"


def _is_count(name: str, value: Any) -> bool:
    """`prompt_tokens: 12`, `max_tokens=256`: a number of tokens, not a token."""
    if isinstance(value, bool):
        return False
    number = isinstance(value, int | float) or (isinstance(value, str) and value.isdigit())
    return number and name.lower().endswith("tokens")


def is_secret_name(name: Any) -> bool:
    return isinstance(name, str) and SECRET_NAME.search(name) is not None


def remember(*secrets: str | None) -> None:
    """Mask these exact values from now on (an API key, a password from a URL)."""
    for secret in secrets:
        if secret and len(secret) >= _MIN_SECRET and secret not in ("EMPTY", "none", "None"):
            _KNOWN.add(secret)


def url_secrets(url: str) -> list[str]:
    """The user name and password a URL carries (both are credentials for most servers)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    return [s for s in (parts.username, parts.password) if s]


def scrub(text: str) -> str:
    """The text with every known secret and secret-shaped value masked."""
    for secret in sorted(_KNOWN, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    for pattern, mask in _PATTERNS:
        text = pattern.sub(mask, text)
    return _NAMED.sub(_masked_named, text)


def scrub_value(value: Any) -> Any:
    """Every string inside a JSON-like value scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrub_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(v) for v in value]
    return value


def mask_value(value: Any) -> Any:
    """A JSON-like value fit for an error or a log line: the value of every secret-named key masked,
    at any depth in dicts and lists (the key stays, so the reader sees which one), strings scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: MASK if _hides(k, v) else mask_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_value(v) for v in value]
    return value


def _hides(name: Any, value: Any) -> bool:
    return is_secret_name(name) and value is not None and not _is_count(str(name), value)
