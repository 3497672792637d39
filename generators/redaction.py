"""Secrets out of every text that is written or printed: keys, URL credentials, echoed headers.

Keys in use are remembered when a client resolves its connection (`remember`), so a server
that echoes one back in an error is caught whatever its shape; known shapes (Bearer tokens,
`sk-...` keys, `user:password@` in URLs, `api_key=` in queries) are caught without that.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

MASK = "[redacted]"
_MIN_SECRET = 4  # shorter values are too likely to be ordinary words to mask everywhere
_KNOWN: set[str] = set()
_PATTERNS = [
    (re.compile(r"(?i)\b(authorization|x-api-key|api-key|proxy-authorization)(\"?\s*[:=]\s*\"?)(bearer\s+|basic\s+)?[^\s\"',;}]+"),
     lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{MASK}"),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]+"), lambda m: f"Bearer {MASK}"),
    # key-shaped: sk- and 6 more characters, or another known prefix and a token with a digit
    # in it (so `hf_dataset` stays a word)
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), lambda m: MASK),
    (re.compile(r"\b(sk|hf|ghp|gho|xox[bp])[-_](?=[A-Za-z_\-]*\d)[A-Za-z0-9_\-]{3,}"), lambda m: MASK),
    (re.compile(r"(?i)([a-z][a-z0-9+.\-]*://)[^/\s@:]*:[^/\s@]*@"), lambda m: f"{m.group(1)}{MASK}@"),
    (re.compile(r"(?i)([a-z][a-z0-9+.\-]*://)[^/\s@:]+@"), lambda m: f"{m.group(1)}{MASK}@"),
    (re.compile(r"(?i)\b((?:api[_-]?key|access[_-]?token|token|key|password|secret)=)[^&\s\"']+"),
     lambda m: f"{m.group(1)}{MASK}"),
]


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
    return text


def scrub_value(value: Any) -> Any:
    """Every string inside a JSON-like value scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrub_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(v) for v in value]
    return value
