"""New things the user writes through the agent: an email to a colleague, a file. Their words are
drawn for one topic (the subject and the body, the title and the text), so that they fit together.
"""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call

from .index import Desk, index_of
from .parts import asked, first_name, fragment, leaves_out, named_fact, quoted

# The topics of the phrasebook's mail_subject_*/mail_text_* and note_title_*/note_text_* (a thank-you is no file).
MAIL_TOPICS = ("numbers", "sync", "draft", "thanks", "handover", "agenda", "questions", "timeline")
NOTE_TOPICS = ("numbers", "sync", "draft", "handover", "agenda", "questions", "timeline")


def send_mail(ctx: GenContext, desk: Desk) -> Piece | None:
    """A new email to a colleague named by the user, with the subject and words the user gives."""
    to = ctx.pick(list(index_of(ctx.world).people.values()))
    if to.id == desk.person.id:
        return None
    topic = ctx.pick(MAIL_TOPICS)  # the subject and the words are about one thing
    subject = ctx.say(f"mail_subject_{topic}")
    text = ctx.say(f"mail_text_{topic}", first=first_name(to))
    ask = leaves_out(ctx)
    said = [named_fact("mail_subject", subject, "subject line", "subject"), named_fact("mail_text", quoted(text), "email text", "text", "say")]
    return Piece(
        request=ctx.say("req_send_mail_ask" if ask else "req_send_mail", name=to.name, subject=subject, text=text),
        goal=f"Email {to.name} with the subject '{subject}' and the text: {text}",
        steps=[
            Step(calls=[call("lookup_colleague", query=to.name)]),
            Step(
                calls=[call("send_email", to=[to.email], subject=subject, body=text)],
                needs=[f.key for f in said],
                confirm=fragment(ctx, "do_send_mail", name=to.name, email=to.email, subject=subject, text=text),
            ),
        ],
        reply=Utterance(intent="reply_mail_sent", vars={"name": to.name, "subject": subject}),
        outputs=[to.name],
        facts=said,
        withheld=asked(said, ask),
        keys=frozenset({f"sent:{desk.person.id}"}),
    )


def new_file(ctx: GenContext, desk: Desk) -> Piece | None:
    """A new file with the title, folder and text the user gives."""
    topic = ctx.pick(NOTE_TOPICS)  # the title and the text are about one thing
    title = f"{desk.person.team} {ctx.say(f'note_title_{topic}')}"
    folder = ctx.pick(("Shared", "Planning", "Reports", "Drafts", "Projects"))
    text = ctx.say(f"note_text_{topic}")
    ask = leaves_out(ctx) and folder.lower() not in text.lower()  # "the shared drive" would read as the folder said
    where = named_fact("folder", folder, "folder for the file", "folder")
    return Piece(
        request=ctx.say("req_new_file_ask" if ask else "req_new_file", title=title, folder=folder, text=text),
        goal=f"Create the file '{title}' in {folder} with the text: {text}",
        steps=[
            Step(
                calls=[call("create_file", title=title, content=text, folder=folder)],
                needs=[where.key],
                confirm=fragment(ctx, "do_new_file", title=title, folder=folder, text=text),
            )
        ],
        reply=Utterance(intent="reply_file_created", vars={"title": title, "folder": folder}),
        outputs=[title],
        facts=[where],
        withheld=asked([where], ask),
        keys=frozenset({f"files:{desk.person.id}"}),
    )
