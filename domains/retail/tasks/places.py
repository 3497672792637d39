"""New addresses users move to (generated per task from a seeded RNG)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from toolgym.envs import Fact

STREETS = (
    "Oak Street",
    "Maple Avenue",
    "Cedar Lane",
    "Pine Road",
    "Elm Street",
    "Lakeview Drive",
    "Sunset Boulevard",
    "Hillcrest Road",
    "River Road",
    "Park Avenue",
    "Willow Way",
    "Highland Avenue",
    "Chestnut Street",
    "Meadow Lane",
    "Harbor View Drive",
    "Spring Street",
    "Orchard Court",
    "Mill Road",
    "Forest Avenue",
    "Washington Street",
)
CITIES = (
    ("Austin", "TX", "78701"),
    ("Denver", "CO", "80203"),
    ("Portland", "OR", "97205"),
    ("Madison", "WI", "53703"),
    ("Raleigh", "NC", "27601"),
    ("Boise", "ID", "83702"),
    ("Tucson", "AZ", "85701"),
    ("Richmond", "VA", "23219"),
    ("Columbus", "OH", "43215"),
    ("Burlington", "VT", "05401"),
    ("Savannah", "GA", "31401"),
    ("Ann Arbor", "MI", "48104"),
    ("Santa Fe", "NM", "87501"),
    ("Spokane", "WA", "99201"),
    ("Omaha", "NE", "68102"),
    ("Providence", "RI", "02903"),
    ("Des Moines", "IA", "50309"),
    ("Chattanooga", "TN", "37402"),
    ("Sacramento", "CA", "95814"),
    ("Pittsburgh", "PA", "15222"),
)


@dataclass(frozen=True)
class Address:
    address1: str
    address2: str
    city: str
    state: str
    zip: str

    def text(self) -> str:
        unit = f", {self.address2}" if self.address2 else ""
        return f"{self.address1}{unit}, {self.city}, {self.state} {self.zip}"

    def arguments(self) -> dict[str, str]:
        return {
            "address1": self.address1,
            "address2": self.address2,
            "city": self.city,
            "state": self.state,
            "zip": self.zip,
        }

    def fact(self, key: str, label: str) -> Fact:
        # the label is the only keyword: two address facts in one task must never answer each other's question
        return Fact(key=key, value=self.text(), label=label, keywords=[label])


def new_address(rng: random.Random) -> Address:
    city, state, zip_code = rng.choice(CITIES)
    unit = rng.choice(
        (
            "",
            "",
            "",
            f"Apt {rng.randint(1, 40)}",
            f"Unit {rng.randint(100, 999)}",
            f"Suite {rng.randint(2, 30)}",
        )
    )
    return Address(f"{rng.randint(2, 9800)} {rng.choice(STREETS)}", unit, city, state, zip_code)
