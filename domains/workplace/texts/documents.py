"""Documents: the text under a file's header, about its title and its status."""

from __future__ import annotations

from collections.abc import Sequence

from .slots import PERIOD_WORDS, Person, Writer, first_name

# A body: an opening about the title, one or two paragraphs of its topic, and a closing that says what
# its Status line says. '{name}' is one of the owner's teammates, '{owner}' the owner's first name. No
# paragraph names a deadline, an amount or a status of its own, nor opens a line with a header's field.

DOC_OPENINGS = (
    "This is the {team} team's {topic} for {when}. It pulls together what we agreed in planning and what is still open.",
    "Purpose: one place for the {team} {topic} for {when}, so everyone works from the same page.",
    "{owner} keeps this document up to date. It covers the {team} {topic} for {when} and links to the detailed plans where they exist.",
    "Summary: this page sets out the {team} {topic} for {when}. Read it first; the sections below go into detail.",
    "Background: the {team} team asked for a single {topic} for {when}, after last time's notes ended up spread across several files.",
)

DOC_TOPICS = {  # a file topic -> paragraphs about it
    "budget": (
        "Most of the spend goes to people and tooling. Travel stays flat, and the events line is smaller than last time because we are running fewer in-person sessions.",
        "Every line has an owner. Requests above the agreed limits go to {owner} first and then to Finance for sign-off.",
        "The biggest open question is contractor cover. {name} is checking whether the work can be done in-house instead.",
    ),
    "roadmap": (
        "The roadmap is ordered by priority, not by date. Items near the top are committed; the rest depend on hiring and on what we learn from customers.",
        "Themes: make onboarding faster, cut manual work for the {other_team} team, and close the gaps customers raise most often.",
        "{name} owns the dependency list. Anything that needs help from {other_team} is flagged so it can be raised at the planning review.",
    ),
    "hiring plan": (
        "We plan to grow the {team} team with a mix of senior and junior hires. Each role has a hiring manager and an interview panel.",
        "Interviews follow the standard loop: a screening call, a skills exercise and a panel with someone from {other_team}.",
        "{name} works with the People team on the job descriptions and on where the roles are advertised.",
    ),
    "launch checklist": (
        "Each item has an owner and a done column. Nothing ships until every item marked as a blocker is ticked off.",
        "Before launch: release notes written, help articles updated, Support briefed, and the rollback plan tested by {name}.",
        "After launch: watch the dashboards closely, collect feedback in the launch channel and hold a short review with {other_team}.",
    ),
    "vendor comparison": (
        "We compared the shortlisted vendors on price, quality of support, security and how well they fit our existing tools.",
        "Only some of the vendors met every must-have. The main difference between them is support: a named contact against a ticket queue.",
        "{name} ran the reference calls. Notes from each call are in the appendix, with the questions we asked.",
    ),
    "onboarding guide": (
        "Welcome to the {team} team! This guide walks you through your first weeks: who to meet, which tools to set up and where to find help.",
        "In your first week, set up your laptop, join the team channels and book a coffee with {name}, your onboarding buddy.",
        "By the end of your first month you should have shipped something small, met the {other_team} team and agreed your goals with your manager.",
    ),
    "quarterly report": (
        "Highlights: the team delivered most of what was planned, customer feedback improved and several long-running projects were closed.",
        "Lowlights: hiring took longer than expected, and the shared work with {other_team} slipped while priorities were reset.",
        "Next we will focus on fewer, bigger projects. {name} will share the proposed list with the team for comment.",
    ),
    "risk register": (
        "Each risk has a likelihood, an impact, an owner and a mitigation. The register is reviewed at the {team} sync every other week.",
        "Top risk: key knowledge sits with too few people. Mitigation: pair {name} with a second person on the critical systems.",
        "Other risks include vendor delays and our dependency on {other_team} for the reporting work. Both are being watched closely.",
    ),
    "pricing proposal": (
        "This proposal simplifies our plans so customers can compare them at a glance, with fewer add-ons and clearer limits.",
        "Sales and Support were consulted. Their main worry is customers on older plans, so nobody is moved without notice.",
        "{name} modelled the revenue impact. The model and its assumptions are in the linked spreadsheet.",
    ),
    "offsite agenda": (
        "The first day is for strategy: where the {team} team stands, what we heard from customers and our priorities for {when}.",
        "The second day is for working sessions in small groups, followed by a team dinner. {name} is organising the evening activity.",
        "Please read the pre-reads before you travel, and send agenda suggestions to {owner}.",
    ),
    "research summary": (
        "We spoke with customers from a range of industries about how they use our product day to day.",
        "The clearest finding: people want fewer steps to their first report. Setup is where most of them get stuck.",
        "{name} ran the interviews with help from {other_team}. Recordings and full notes are in the research folder.",
    ),
    "retro notes": (
        "What went well: people helped each other out, and the handover to {other_team} was smoother than last time.",
        "What didn't: too many meetings and unclear ownership of the release process. Several people felt stretched.",
        "Actions: {name} will draft a clearer release process, and we will try a meeting-free afternoon each week.",
    ),
    "campaign brief": (
        "Goal: raise awareness of the new features among existing customers and win back accounts that have gone quiet.",
        "Audience: team leads at mid-sized companies. Channels: email, webinars and a short series of customer stories.",
        "{name} owns the creative. Copy goes through {other_team} for a fact check before anything is published.",
    ),
    "capacity plan": (
        "This plan compares the work asked of the {team} team with the people available, week by week.",
        "Demand runs above capacity in the middle of the period. We propose moving the lower-priority requests and borrowing help from {other_team}.",
        "{name} updates the plan every week from the project tracker; please keep your estimates there current.",
    ),
    "security review": (
        "Scope: the systems the {team} team runs, who has access to them, and how that access is granted and removed.",
        "Findings: some accounts kept their access after people changed teams, and a few shared passwords were still in use.",
        "Fixes are assigned. {name} is moving the shared passwords into the password manager, and {other_team} will review access regularly.",
    ),
    "training plan": (
        "The plan covers the skills the {team} team asked for most: working with data, presenting to customers and planning projects.",
        "Sessions are run by colleagues where possible, with {name} leading the first one and {other_team} helping with the rest.",
        "Everyone should attend the core sessions. The optional ones are recorded and kept in the training folder.",
    ),
}

DOC_CLOSINGS = {  # the Status line -> how the text ends
    "draft": (
        "This is still a draft. Comments are welcome; please leave them in the margin rather than editing the text.",
        "Early draft: some sections are incomplete. {owner} will circulate a fuller version for review.",
    ),
    "in review": (
        "This document is in review. {name} and the team leads are reading it; please send comments to {owner}.",
        "Currently in review. Edits are paused until the comments are in.",
    ),
    "approved": (
        "Approved. From now on changes go through {owner}, so we keep a clear record of what was agreed.",
        "This version has been approved by the team leads. Please treat it as the plan of record.",
    ),
    "on hold": (
        "On hold while priorities are reviewed. Please don't act on it yet; {owner} will tell the team when work resumes.",
        "Work on this is paused. The content is kept here for reference.",
    ),
    "final": (
        "This is the final version. For questions, contact {owner}.",
        "Final. Earlier drafts are kept in the Drafts folder for reference.",
    ),
}


def document_body(
    w: Writer, owner: Person, team_mates: Sequence[Person], period: str, topic: str, status: str
) -> str:
    """The text under a file's header, about its title ('{team} {period} {topic}') and its status."""
    slots = w.slots(
        owner, people=team_mates,
        team=str(owner["team"]), owner=first_name(owner), topic=topic, when=PERIOD_WORDS.get(period, period),
    )
    middle = w.rng.sample(DOC_TOPICS[topic], w.rng.choice((1, 2, 2)))
    middle.sort(key=DOC_TOPICS[topic].index)
    paragraphs = [w.deal(DOC_OPENINGS), *middle, w.rng.choice(DOC_CLOSINGS[status])]
    return "\n\n".join(slots.fill(p) for p in paragraphs)
