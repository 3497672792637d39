"""Who a customer may be calling about, for requests that name someone rather than a line."""

from __future__ import annotations

# (who, their): the possessive keeps a phrasing grammatical for any of them.
RELATIVES = (
    ("son", "his"), ("daughter", "her"), ("husband", "his"), ("wife", "her"), ("partner", "their"),
    ("mother", "her"), ("father", "his"), ("grandson", "his"), ("granddaughter", "her"),
    ("brother", "his"), ("sister", "her"), ("nephew", "his"), ("niece", "her"),
    ("grandmother", "her"), ("grandfather", "his"),
)  # fmt: skip
# Anyone a customer might know somewhere else (no pronoun needed).
CONTACTS = tuple(who for who, _ in RELATIVES) + ("colleague", "friend", "neighbour", "boss", "client", "flatmate")
