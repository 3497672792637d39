"""The vehicle tools: reads, driving controls (preconditions enforced), comfort controls."""

from .cabin import CABIN_TOOLS
from .driving import DRIVING_TOOLS
from .readings import READ_TOOLS

TOOLS = [*READ_TOOLS, *DRIVING_TOOLS, *CABIN_TOOLS]
