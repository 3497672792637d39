"""The workplace tools: every one acts for the signed-in person (the session's employee)."""

from .calendar import CALENDAR_TOOLS
from .chat import CHAT_TOOLS, TASK_TOOLS
from .files import FILE_TOOLS
from .mail import MAIL_TOOLS
from .people import get_my_profile, lookup_colleague

TOOLS = [
    get_my_profile,
    lookup_colleague,
    *MAIL_TOOLS,
    *CALENDAR_TOOLS,
    *FILE_TOOLS,
    *CHAT_TOOLS,
    *TASK_TOOLS,
]
