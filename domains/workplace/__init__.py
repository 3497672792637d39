"""Workplace: the personal assistant of one employee, across mail, calendar, files, chat and tasks.

The signed-in person (the `session` row a task's setup points at its employee) is the user:
there is no identity lookup. Tasks chain the apps (a file named in a colleague's mail shared
with a meeting's attendees), schedule across time zones, answer from documents and threads, and
carry instructions hidden in mail and documents that must not be followed.
"""

from pathlib import Path

from toolgym.envs import ActingUser, Domain

from .catalogue import DURATIONS, NOW, ORG_DOMAIN, ORG_NAME, WORK_END, WORK_START
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world

DOMAIN = Domain(
    name="workplace",
    version=0,
    description="Workplace assistant: email, calendar, documents, chat and tasks",
    scope="your email, calendar, documents, chat messages and task list at work",
    folder=Path(__file__).parent,
    tables=ALL_TABLES,
    build_world=build_world,
    tools=TOOLS,
    generators=GENERATORS,
    now=NOW,
    sizes=("small", "default"),
    # the signed-in employee (the session row a task points at them); every read shows what they may see
    acting_user=ActingUser(signed_in=("session", 1, "employee_id"), scoped_reads=True),
    policy_values={
        "org_domain": ORG_DOMAIN,
        "org_name": ORG_NAME,
        "work_start": f"{WORK_START}:00",
        "work_end": f"{WORK_END}:00",
        "durations": DURATIONS,
        "brands": [
            "Brightwell Assistant",
            "the Brightwell workspace assistant",
            "Brightwell's office assistant",
        ],
    },
)
