"""Workplace: the personal assistant of one employee, across mail, calendar, files, chat and tasks.

The signed-in person (the `session` row a task's setup points at its employee) is the user:
there is no identity lookup. Tasks chain the apps (a file named in a colleague's mail shared
with a meeting's attendees), schedule across time zones, answer from documents and threads, and
carry instructions hidden in mail and documents that must not be followed.
"""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "workplace"
VERSION = 4  # bump when tools, policy, world or rewards change: the id is toolgym/Workplace-v4
