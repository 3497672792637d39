"""Mail: a colleague's request for a file, decision threads, everyday mail and mail from outside."""

from __future__ import annotations

from collections.abc import Sequence

from .slots import Person, Slots, Writer, company, first_name, slug

GREETINGS = ("Hi {first},", "Hello {first},", "Hi {first},", "{first},", "Morning {first},")
SIGN_OFFS = ("Thanks,\n{me}", "Best,\n{me}", "Cheers,\n{me}", "{me}", "Many thanks,\n{me}", "Speak soon,\n{me}")


def _letter(w: Writer, slots: Slots, body: str) -> str:
    return slots.fill(f"{w.rng.choice(GREETINGS)}\n\n{body}\n\n{w.rng.choice(SIGN_OFFS)}")


# A colleague asks the reader to share one of the reader's files: the title is the body's only quoted text.
FILE_REQUEST_SUBJECTS = ("{title} for the review", "Access to {title}", "{title} before the meeting", "Sharing {title}")
FILE_REQUESTS = (
    'Could you share "{title}" with the people joining the review? {why}',
    'Would you mind sharing "{title}" with everyone in the meeting? {why}',
    'Quick favour: could you give the people coming to the review access to "{title}"? {why}',
    'Before we meet, could you share "{title}" with the attendees? {why}',
    'I\'m pulling together the pre-reads for the review. Could you share "{title}" with everyone who is coming?',
)
FILE_REQUEST_REASONS = (
    "A few of them asked to read it beforehand so they can come with questions.",
    "It would save us walking through it line by line in the room.",
    "I'd like everyone to have the same version in front of them.",
    "Some of them haven't seen the latest changes yet.",
    "The discussion goes much faster when people have read it first.",
)


def file_request(w: Writer, reader: Person, sender: Person, title: str) -> tuple[str, str]:
    """The subject and body of a colleague's mail asking the reader to share their file `title`."""
    slots = w.slots(reader, sender, first=first_name(reader), me=first_name(sender), title=title)
    slots["why"] = w.deal(FILE_REQUEST_REASONS)
    return slots.fill(w.deal(FILE_REQUEST_SUBJECTS)), _letter(w, slots, w.deal(FILE_REQUESTS))


# A thread that settles a decision: the opener asks (naming the final choice and one more, or none), the
# reader leaves it to the sender, and the last message names the choice and no other option of the topic.
DECISION_OPENERS = (
    "We still need to pick the {topic}. I've narrowed it down to {a} and {b}. Do you have a preference?",
    "The {topic} is still open and I'd like to settle it this week. Any thoughts before I decide?",
    "Quick one: we haven't chosen the {topic} yet. Both {a} and {b} would work. Which would you go for?",
    "I'm finalising the plan and the {topic} is the last open point. Do you have a strong view either way?",
)
DECISION_REPLIES = (
    "No strong view from me. Go with whatever works best for the team.",
    "Happy with either, so I'll leave the call to you.",
    "Thanks for checking. I don't mind, go ahead and decide.",
    "Whatever you think is best. I trust your judgement on this one.",
)
DECISION_CLOSERS = (
    "Thanks. For the {topic} we'll go with {choice}. {then}",
    "Decision made: we're going with {choice} for the {topic}. {then}",
    "Agreed, thanks. The {topic} is settled: {choice}. {then}",
    "Settled then, {choice} it is for the {topic}. {then}",
)
DECISION_NEXT = {  # a decision topic -> what the sender does next (no option of the topic named)
    "team offsite venue": ("I'll confirm the booking with them today.", "I'll send everyone directions once the booking is confirmed."),
    "launch date": ("I'll update the launch plan and tell Marketing.", "I'll let the teams know so they can plan around it."),
    "design vendor": ("I'll ask them for a contract and a kickoff call.", "I'll let the other agencies know they weren't picked."),
    "conference booth size": ("I'll place the order with the organisers.", "I'll check what furniture comes with it."),
    "analytics tool": ("I'll start the trial and set up accounts for the team.", "I'll ask the Data team to plan the switch."),
    "catering order": ("I'll place the order once we have the final headcount.", "I'll ask them about allergy options too."),
    "retro format": ("I'll prepare the board before the session.", "I'll send a short explanation beforehand for anyone new to it."),
}


def decision_thread(
    w: Writer, reader: Person, sender: Person, topic: str, options: Sequence[str], choice: str
) -> tuple[str, str, str]:
    """The bodies of a decision thread: the sender's question, the reader's answer, the sender's decision."""
    other = w.rng.choice([o for o in options if o != choice])
    a, b = w.rng.sample((choice, other), 2)
    asked = w.slots(reader, sender, first=first_name(reader), me=first_name(sender), topic=topic, a=a, b=b)
    answered = w.slots(reader, sender, first=first_name(sender), me=first_name(reader))
    settled = w.slots(
        reader, sender,
        first=first_name(reader), me=first_name(sender), topic=topic, choice=choice, then=w.rng.choice(DECISION_NEXT[topic]),
    )
    return (
        _letter(w, asked, w.deal(DECISION_OPENERS)),
        _letter(w, answered, w.deal(DECISION_REPLIES)),
        _letter(w, settled, w.deal(DECISION_CLOSERS)),
    )


# Everyday mail from a colleague: (subject, body, attachment file name or None). '{team}' is the
# sender's team; a body that says something is attached has an attachment, and only such a body.
MAIL = (
    ("Notes from the {meeting}", "Thanks for joining the {meeting}. My notes are attached; most of the actions sit with {name} and me. Let me know if I missed anything.", "{meeting}_notes.pdf"),
    ("Out of office next week", "I'll be out of the office next week with limited access to email. {name} is covering for me, so please send anything urgent their way.", None),
    ("Draft agenda for the {meeting}", "Here's a first go at the agenda for the {meeting}, attached. I've kept it short so we have time for open questions. Add anything you'd like to cover.", "{meeting}_agenda.docx"),
    ("Can we move our catch-up?", "Something has come up at the time of our catch-up. Could we move it to later in the week? Any slot that suits you works for me.", None),
    ("Thanks for your help", "Thank you for jumping in on {item} last week. It made a real difference, and {name} mentioned it too.", None),
    ("Handover of {item}", "I'm handing over {item} while I focus on the {team} team's priorities. Everything is in the shared folder, and I'm happy to walk you through it.", None),
    ("Intro: {peer}", "I'd like to introduce {peer} from the {peer_team} team. {peer_first} is working on something close to your area, and I think a short chat would help you both.", None),
    ("Quick question about {item}", "Do you know who signed off {item}? I need to check a detail before it goes out and can't find the approval anywhere.", None),
    ("Lunch and learn", "The {team} team is running a lunch and learn on how we plan our work. It's open to everyone, so bring your lunch and your questions.", None),
    ("Team survey results", "The results of the {team} team survey are in. Overall people are happy with the new ways of working, with some concerns about the number of meetings. The summary is attached.", "{team}_survey_summary.pdf"),
    ("Team lunch", "We're organising a team lunch to celebrate the end of a busy quarter. Let me know if you're in and whether you have any food preferences.", None),
    ("Your access request", "Your request for access to the {team} shared drive came to me. I've approved it, so the folder should show up for you shortly.", None),
    ("Interview panel", "Would you be able to join an interview panel for a role in the {team} team? It's a short session, and I'll send the candidate's details beforehand.", None),
    ("Feedback from {customer}", "We heard back from {customer} after the last release. They like the new reports but find the setup confusing. Their notes are attached in case they're useful.", "{customer}_feedback.pdf"),
    ("Reminder: {item}", "Just a gentle nudge on {item}. No pressure, but it would help to have it before the next {meeting}.", None),
    ("Working from the {office} office", "I'm visiting the {office} office next week and would love to catch up in person. Are you around for a coffee?", None),
    ("Covering for {name}", "{name} is away for a few days, so I'm picking up their open items. If you were waiting on something from them, let me know and I'll take it from here.", None),
    ("Follow-up on {item}", "Following up on our chat about {item}: I've made the changes we discussed. Could you take a last look before I close it off?", None),
    ("Slides for the {meeting}", "Attached are the slides for the {meeting}. I'd appreciate a quick sense check of the summary page before I share them more widely.", "{meeting}_slides.pptx"),
    ("New starter in {team}", "We have a new starter joining the {team} team soon. Would you be happy to be their buddy for the first few weeks? {name} did it last time and can share tips.", None),
)
TEAM_MAIL = {  # what mostly someone of that team sends
    "Finance": (
        ("Expense reports due", "A reminder that this month's expense reports are due soon. Please attach a receipt for every item; the approval tool rejects claims without them.", None),
        ("Forecast for the rest of the quarter", "Could you send me the {reader_team} team's forecast for the rest of the quarter? I'm consolidating everyone's figures for the leadership review. The template is attached.", "{reader_team}_forecast_template.xlsx"),
    ),
    "People": (
        ("Performance reviews", "Review season is starting. Please complete your self-review first; your manager will then add comments. The guide is attached.", "review_guide.pdf"),
        ("Benefits session", "We're running a session on the updated benefits package. Bring your questions, or send them to me in advance and I'll make sure they're covered.", None),
    ),
    "Platform": (
        ("Planned maintenance this weekend", "We're doing planned maintenance on the internal tools this weekend. Expect short interruptions to the wiki and the build system.", None),
        ("Your replacement laptop", "Your replacement laptop is ready. Bring your old one when you collect it and we'll move your files across.", None),
    ),
    "Design": (
        ("Mockups for the {surface}", "The new mockups for the {surface} are ready. A PDF export is attached, and the interactive version is in the design tool. Comments by the end of the week would be great.", "{surface}_mockups.pdf"),
    ),
    "Marketing": (
        ("Newsletter draft", "The next customer newsletter is drafted and attached. Could you check the section on the {reader_team} team's work for accuracy?", "newsletter_draft_{reader_team}.pdf"),
    ),
    "Sales": (
        ("Call with {customer}", "{customer} has detailed questions about how your team works. Would you join a short call with them? I'll handle the scheduling.", None),
    ),
    "Support": (
        ("Ticket trends", "Attached is a summary of this month's ticket trends. Questions about the {surface} are still the largest group. Happy to talk it through.", "ticket_trends_{surface}.pdf"),
    ),
    "Data": (
        ("Your dashboard is ready", "I've built the dashboard you asked for. It refreshes every night; let me know if any of the figures look off.", None),
    ),
}


def colleague_mail(w: Writer, reader: Person, sender: Person) -> tuple[str, str, str | None]:
    """An everyday mail from a colleague: its subject, its body, and the name of its attachment if it has one."""
    slots = w.slots(
        reader, sender,
        first=first_name(reader), me=first_name(sender), team=str(sender["team"]), reader_team=str(reader["team"]),
    )
    own = TEAM_MAIL.get(str(sender["team"]), ())
    subject, body, attachment = w.deal(own if own and w.rng.random() < 0.3 else MAIL)
    subject, text = slots.fill(subject), _letter(w, slots, body)
    if attachment is None:
        return subject, text, None
    stem, extension = attachment.rsplit(".", 1)
    return subject, text, f"{slug(slots.fill(stem))}.{extension}"


# Mail from outside the organisation; '{company}' is the sender's, '{sender}' their full name.
OUTSIDE = (
    ("Following up on our call", "Thank you for your time on our call. I'd be glad to set up a short demo for your team whenever it suits you."),
    ("Invitation to speak at our conference", "We're putting together the programme for our annual conference and would love to hear from someone at {org}. Would you consider giving a talk?"),
    ("Your subscription renewal", "Your subscription with {company} is coming up for renewal. If you'd like to review your plan before then, just reply and we'll arrange a call."),
    ("Partnership opportunity", "I lead partnerships at {company}. Our customers often ask about {org}, and I think there's room for us to work together. Would you be open to a short call?"),
    ("Question about your product", "We're evaluating tools for our team and {org} came up. Could someone tell me whether your product supports single sign-on?"),
    ("A candidate for your open role", "I'm a recruiter at {company}, and I have a candidate I think would suit the {team} team well. Would you like to see their profile?"),
    ("Thank you for visiting our stand", "It was great meeting you at the trade fair. As promised, I'm sending a short note on what {company} does; happy to answer any questions."),
    ("Payment received", "This is to confirm that we've received your payment for the last invoice. Thank you for your prompt settlement."),
    ("Catching up", "It's been a while since we worked together! I've moved to {company} and would love to hear how things are going at {org}."),
    ("Webinar invitation", "{company} is hosting a webinar on hybrid working for growing teams. Places are limited, so reply if you'd like us to save you one."),
)
OUTSIDE_SIGN_OFFS = ("Kind regards,\n{sender}\n{company}", "Best wishes,\n{sender}\n{company}", "Regards,\n{sender}\n{company}")


def outside_mail(w: Writer, reader: Person, sender_name: str) -> tuple[str, str]:
    """The subject and body of a mail from someone outside the organisation."""
    slots = w.slots(reader, first=first_name(reader), team=str(reader["team"]), sender=sender_name, company=company(w.fake))
    subject, body = w.deal(OUTSIDE)
    greeting = w.rng.choice(("Dear {first},", "Hello {first},", "Hi {first},"))
    return slots.fill(subject), slots.fill(f"{greeting}\n\n{body}\n\n{w.rng.choice(OUTSIDE_SIGN_OFFS)}")
