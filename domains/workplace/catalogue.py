"""The fixed vocabulary of a workplace world: offices, teams, file and meeting topics, decisions."""

from __future__ import annotations

import datetime as dt

ORG_DOMAIN = "brightwell.example"
ORG_NAME = "Brightwell"
NOW = dt.datetime(2025, 3, 11, 9, 0)  # UTC, a Tuesday: "tomorrow" is 2025-03-12 in every office
WORK_START, WORK_END = 9, 17  # working hours, in each person's own time zone
SLOT_MINUTES = 30  # free slots start on the hour or the half hour
DURATIONS = (15, 30, 45, 60, 90)

OFFICES = {  # office -> IANA time zone
    "New York": "America/New_York",
    "Chicago": "America/Chicago",
    "London": "Europe/London",
    "Berlin": "Europe/Berlin",
}
TEAMS = ("Design", "Finance", "Marketing", "Platform", "Sales", "Support", "People", "Data")
TITLES = ("Analyst", "Manager", "Engineer", "Specialist", "Coordinator", "Lead", "Associate")

# What any team keeps: its plans, reports and notes
FILE_TOPICS = (
    "budget",
    "roadmap",
    "hiring plan",
    "onboarding guide",
    "quarterly report",
    "risk register",
    "offsite agenda",
    "retro notes",
    "capacity plan",
    "training plan",
)
# ... and what only some teams write: Finance keeps no campaign brief, Marketing no security review
TEAM_FILE_TOPICS = {
    "Design": ("research summary", "launch checklist"),
    "Finance": ("vendor comparison", "pricing proposal"),
    "Marketing": ("campaign brief", "launch checklist", "research summary"),
    "Platform": ("security review", "launch checklist", "vendor comparison"),
    "Sales": ("pricing proposal", "campaign brief"),
    "Support": ("vendor comparison",),
    "People": ("vendor comparison",),
    "Data": ("research summary", "security review"),
}
FILE_PERIODS = ("Q1", "Q2", "Q3", "Q4", "2025", "March", "April", "H1", "H2", "spring", "autumn")
FILE_FOLDERS = ("Shared", "Planning", "Reports", "Drafts", "Projects")
STATUSES = ("draft", "in review", "approved", "on hold", "final")

MEETING_TOPICS = (
    "review",
    "planning",
    "sync",
    "standup",
    "retro",
    "kickoff",
    "1:1",
    "budget review",
    "design critique",
    "roadmap review",
    "hiring debrief",
    "customer call prep",
    "demo",
    "workshop",
)
LOCATIONS = ("Room Aspen", "Room Birch", "Room Cedar", "Room Maple", "Video call", "Room Willow", "Room Oak")

DECISIONS = {  # a thread's topic -> what the last message settles on
    "team offsite venue": (
        "the Harbor Loft",
        "Grand Hall on 5th",
        "the Lakeside Lodge",
        "Studio Nine",
        "the Old Mill",
    ),
    "launch date": ("the 24th of March", "the 31st of March", "the 7th of April", "the 14th of April"),
    "design vendor": ("Pixelforge", "Northlight Studio", "Kestrel Design", "Bluefin Creative"),
    "conference booth size": ("the small booth", "the medium booth", "the corner booth", "the double booth"),
    "analytics tool": ("Metabase", "Looker", "Superset", "Mode"),
    "catering order": ("the Mediterranean menu", "the sandwich platters", "the vegan buffet", "the taco bar"),
    "retro format": ("the sailboat format", "start-stop-continue", "the 4Ls format", "mad-sad-glad"),
}

EXTERNAL_DOMAINS = ("gmail.com", "outlook.com", "vendormail.net", "proton.me", "yahoo.com", "partnerco.biz")
CHANNEL_NAMES = (
    "general",
    "random",
    "announcements",
    "design",
    "finance",
    "marketing",
    "platform",
    "sales",
    "support",
    "people",
    "data",
    "incidents",
    "launch",
    "offsite",
    "kudos",
)
