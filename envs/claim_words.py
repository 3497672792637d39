"""The words of claims: action verbs and their forms, words of completion and of checking, record nouns.

An agent claims an action with a verb in the past or the participle ("cancelled", "sent", "has been
refunded"). Verbs that may name the same act are grouped ("blocked" may report a freeze, "turned
on" a setting); a claim and a tool match when the claim verb's group holds a verb the tool declares.
Groups are kept narrow on purpose: "cancelled" never matches a tool that only stops or sets things.
"""

from __future__ import annotations

from functools import lru_cache

# Verbs that may name the same act, one group a line. A verb in several groups may mean any of them.
_GROUPS = """
cancel call_off void revoke scrap
refund reimburse repay pay_back credit_back
book reserve rebook
send email mail forward resend dispatch deliver message text
reply respond answer write_back
post publish announce share
share grant
schedule set_up arrange plan line_up
reschedule move shift postpone push_back bring_forward rebook delay
transfer move wire send
transfer hand hand_over hand_off escalate pass_on refer connect forward put_through
pay pay_off settle send
charge bill debit
change update modify edit amend adjust set switch correct alter revise upgrade downgrade configure reset turn raise lower increase decrease reduce extend heat warm cool limit cap dim put
enable activate reactivate turn switch start allow
disable deactivate turn switch stop block
freeze block lock suspend hold pause
unfreeze unblock unlock reactivate resume restore reinstate lift
open unlock
close shut lock
start begin launch kick_off resume play turn switch power_on fire_up
stop end halt pause turn switch finish shut_down power_off power_down
suspend pause freeze hold deactivate
resume restart reactivate restore unpause reinstate unsuspend
add include attach insert top_up buy purchase save register enrol enroll apply
remove delete drop take_off clear erase discard trash
create make set_up add open draft generate establish write start
mark flag tick tick_off check_off label star unflag
complete finish resolve tick_off check_off mark wrap_up finalise finalize close
return send_back
exchange swap replace trade
order place purchase buy reorder
replace reissue renew
report file flag raise log lodge register
dispute contest challenge file raise lodge open
request order ask_for apply_for submit
redeem spend use claim cash_in
assign allocate give select choose pick seat reserve
invite add include
move file archive relocate put
load apply restore
play start queue stream put_on
navigate route direct guide set
notify inform tell alert let_know warn
insure cover add
renew extend
subscribe sign_up enrol enroll register join
unsubscribe opt_out
issue grant provide give
respond answer reply accept decline reject rsvp
approve authorise authorize accept
save store record keep
top_up recharge refill add
"""

# Forms that the rules of -ed do not give. Two-word verbs inflect their first word.
_IRREGULAR: dict[str, tuple[str, ...]] = {
    "send": ("sent",), "set": ("set",), "pay": ("paid",), "freeze": ("froze", "frozen"),
    "unfreeze": ("unfroze", "unfrozen"), "put": ("put",), "make": ("made",), "give": ("gave", "given"),
    "take": ("took", "taken"), "shut": ("shut",), "choose": ("chose", "chosen"), "buy": ("bought",),
    "spend": ("spent",), "write": ("wrote", "written"), "read": ("read",), "find": ("found",),
    "begin": ("began", "begun"), "hold": ("held",), "reset": ("reset",), "cut": ("cut",),
    "do": ("did", "done"), "go": ("went", "gone"), "see": ("saw", "seen"), "resend": ("resent",),
    "rewrite": ("rewrote", "rewritten"), "tell": ("told",), "let": ("let",), "keep": ("kept",),
    "lay": ("laid",), "leave": ("left",), "get": ("got", "gotten"), "draw": ("drew", "drawn"),
    "cancel": ("cancelled", "canceled"), "label": ("labelled", "labeled"), "travel": ("travelled", "traveled"),
    "dial": ("dialled", "dialed"), "total": ("totalled", "totaled"), "lodge": ("lodged",),
    "unpause": ("unpaused",),
}
# Final consonants doubled before -ed after one short vowel ("stopped", "transferred", "submitted").
_DOUBLED = {
    "stop", "plan", "ship", "drop", "flag", "log", "transfer", "submit", "swap", "top", "pin", "star",
    "unflag", "refer", "permit", "admit", "dim", "cap", "scrap", "tag", "chat", "rerun", "prefer", "commit",
}

# Words that state that something was done, whatever it was ("Done.", "That went through.").
# A claim of this kind needs some successful write; naming an act ("the refund is complete") needs that act.
COMPLETION = frozenset(
    {"done", "completed", "complete", "finished", "processed", "handled", "sorted", "settled", "executed", "finalised",
     "finalized", "confirmed", "issued", "initiated", "submitted", "actioned", "fulfilled", "effected"}
)
# Completion words that are also a record's status ("order #W1 is processed"): a state that may be read back.
COMPLETION_STATES = frozenset({"processed", "confirmed", "issued", "initiated", "submitted", "completed", "complete", "fulfilled"})
# Several-word completion phrases, by their first word: "taken care of", "went through", "all set".
COMPLETION_PHRASES: dict[str, tuple[tuple[str, ...], ...]] = {
    "taken": (("care", "of"),),
    "took": (("care", "of"),),
    "went": (("through",),),
    "gone": (("through",),),
    "wrapped": (("up",),),
    "carried": (("out",),),
    "put": (("through",),),
    "sorted": (("out",),),
    "made": (("the", "change"), ("the", "changes"), ("the", "update")),
}
# Nouns that name an act: "your refund has been issued" claims a refund.
ACTION_NOUNS: dict[str, str] = {
    "refund": "refund", "cancellation": "cancel", "booking": "book", "reservation": "book", "transfer": "transfer",
    "payment": "pay", "exchange": "exchange", "return": "return", "change": "change", "update": "change",
    "modification": "change", "dispute": "dispute", "replacement": "replace", "reply": "reply",
    "invitation": "invite", "invite": "invite", "renewal": "renew", "subscription": "subscribe",
    "escalation": "transfer", "suspension": "suspend", "deletion": "remove", "removal": "remove",
    "reschedule": "reschedule", "redemption": "redeem", "top-up": "top_up", "topup": "top_up",
}

# Claims of having looked something up: past forms, and the verbs of "let me check".
CHECK_VERBS = frozenset(
    {"check", "look", "verify", "review", "search", "find", "confirm", "double-check", "consult", "read",
     "pull", "see", "inspect", "examine", "query", "go"}
)
CHECK_PAST = frozenset(
    {"checked", "looked", "verified", "reviewed", "searched", "found", "confirmed", "double-checked",
     "consulted", "read", "pulled", "inspected", "examined", "queried"}
)

# Nouns of the records that tools act on, and words that name the same record.
RECORD_NOUNS = frozenset(
    """order booking reservation flight hotel room card account payment refund transfer line plan phone
    number bill invoice event meeting invitation appointment message email mail file document folder task
    ticket case dispute statement payee loan address subscription item product seat bag baggage insurance
    point reward window door trunk light headlight engine climate temperature fan heating defrost media
    volume navigation route charging limit profile cruise roaming refill sim channel post thread calendar
    return exchange schedule reminder note contact password pin membership package shipment delivery taxi cab ride
    call pickup parcel""".split()
)
_NOUN_GROUPS = """
booking reservation flight hotel room
event meeting invitation appointment calendar
message email mail reply thread
line number phone sim
card payment method
account customer profile detail contact
file document
task todo
"""


def _word_groups(table: str) -> dict[str, frozenset[str]]:
    """For each word of a table of groups (one a line), every word it shares a group with."""
    groups: dict[str, set[str]] = {}
    for line in table.split("\n"):
        members = line.split()
        for word in members:
            groups.setdefault(word, set()).update(members)
    return {word: frozenset(members) for word, members in groups.items()}


SYNONYMS: dict[str, frozenset[str]] = _word_groups(_GROUPS)
NOUN_SYNONYMS: dict[str, frozenset[str]] = _word_groups(_NOUN_GROUPS)


def synonyms(verb: str) -> frozenset[str]:
    """The verbs that may name the same act as `verb` (itself included)."""
    return SYNONYMS.get(verb, frozenset((verb,)))


def noun_synonyms(noun: str) -> frozenset[str]:
    return NOUN_SYNONYMS.get(noun, frozenset((noun,)))


def singular(word: str) -> str:
    """A plural noun's singular, by the plain English rules ('orders' -> 'order', 'entries' -> 'entry')."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=4096)
def past_forms(verb: str) -> tuple[str, ...]:
    """The past tense and participle of a verb ('cancel' -> cancelled, canceled; 'set up' -> set up)."""
    head, _, rest = verb.replace("_", " ").partition(" ")
    forms = _IRREGULAR.get(head) or _regular_past(head)
    return tuple(f"{form} {rest}".strip() for form in forms)


def _regular_past(verb: str) -> tuple[str, ...]:
    if verb.endswith("e"):
        return (verb + "d",)
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return (verb[:-1] + "ied",)
    if verb in _DOUBLED:
        return (verb + verb[-1] + "ed",)
    return (verb + "ed",)


@lru_cache(maxsize=4096)
def present_forms(verb: str) -> tuple[str, ...]:
    """The base and third-person forms ('cancel', 'cancels'; 'apply', 'applies')."""
    head = verb.replace("_", " ").partition(" ")[0]
    if head.endswith(("s", "sh", "ch", "x", "z")):
        third = head + "es"
    elif len(head) > 2 and head.endswith("y") and head[-2] not in "aeiou":
        third = head[:-1] + "ies"
    else:
        third = head + "s"
    return (head, third)


def known_verbs() -> frozenset[str]:
    """Every verb of the groups (two-word verbs joined by '_')."""
    return frozenset(SYNONYMS)


# Verbs too common to read as claims of an act ("I used the calculator", "I've kept the doors
# locked", "the booking was made in May") unless a tool of the domain declares them.
LIGHT_VERBS = frozenset(
    "use make give put keep take get hold let tell pass go run do have see find leave bring help note say ask end pick "
    "choose cover text message mail keep spend direct guide claim".split()
)
