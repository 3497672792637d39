"""Names a customer may give for someone they pay, and the banks those people use."""

from __future__ import annotations

FIRST_NAMES = ("Dana", "Marcus", "Priya", "Tom", "Elena", "Jamal", "Sofia", "Kenji", "Grace", "Omar", "Lucia", "Ben",
               "Aisha", "Noah", "Ingrid", "Mateo", "Hannah", "Victor", "Mei", "Rosa", "Felix", "Amara", "Liam", "Zoe")  # fmt: skip
LAST_NAMES = ("Whitfield", "Okafor", "Brennan", "Castillo", "Nakamura", "Fischer", "Delgado", "Holloway", "Price",
              "Ramirez", "Sutton", "Kowalski", "Moreau", "Adeyemi", "Larsen", "Patel", "Quinn", "Serrano", "Walsh", "Young")  # fmt: skip
OTHER_BANKS = ("First Coastal Bank", "River Valley Credit Union", "Summit National", "Pinecrest Bank", "Union Harbor Bank",
               "Golden Plains Bank", "Bayview Savings", "Northgate Credit Union", "Redwood Trust", "Keystone Bank")  # fmt: skip
