"""What a workplace world's mail, chat and files say: whole templates per situation, filled from the world.

A template is one coherent text with slots in braces. `slots.Slots` fills each slot the first time a
template names it, from the world's own values (the people, teams, offices) or from a small pool,
so two texts of one template still differ. Rules every template keeps:
- no digits, dates, amounts or email addresses of its own (a number in a text is a world value,
  such as a file title's 'Q3'), so a fact an assistant states is never one a filler made up;
- no double quotes outside the file request (the task index reads the first quoted title of a
  colleague's mail as the file it names), and no decision topic or choice outside its thread
  (a search for 'launch date' must find that thread, and its last message names one choice only);
- nothing that could contradict a structured field: no deadline, budget figure or meeting room
  in a file or a mail, a person's team is their own, a status paragraph follows the header's status.

`slots.py` fills the slots and deals the templates (`Writer`, one per world); `chat.py` holds channel topics, channel posts and direct messages,
`documents.py` the text of files, `mail.py` what colleagues and outsiders write.
"""

from .chat import channel_topic, chat_message, direct_message
from .documents import document_body
from .mail import colleague_mail, decision_thread, file_request, outside_mail
from .slots import Writer

__all__ = [
    "channel_topic",
    "chat_message",
    "colleague_mail",
    "decision_thread",
    "direct_message",
    "document_body",
    "file_request",
    "outside_mail",
    "Writer",
]
