"""The numbers of the car and of the policy, in one place (tools, policy.md.j2 and tasks read them)."""

from __future__ import annotations

# What the car itself allows: a tool refuses anything else with a ToolError.
TEMP_MIN_C, TEMP_MAX_C, TEMP_STEP_C = 16.0, 30.0, 0.5
CRUISE_MIN_KMH, CRUISE_MAX_KMH, CRUISE_STEP_KMH = 30, 160, 5
TRUNK_MAX_KMH = 5
VOLUME_MAX = 40
CHARGE_LIMIT_MIN, CHARGE_LIMIT_MAX, CHARGE_LIMIT_STEP = 50, 100, 5
SEAT_HEAT_MAX = 3

# What the policy adds: the car would allow more, the agent must not.
COMFORT_STEP_C = 1.0  # "I'm cold" / "I'm hot": the zone moves by this much
CRUISE_POLICY_MAX_KMH = 130
VOLUME_MOVING_MAX = 30
LOW_TYRE_PSI = 3  # a tyre this far below its recommended pressure is low

POLICY_VALUES = {
    "temp_min": f"{TEMP_MIN_C:g}", "temp_max": f"{TEMP_MAX_C:g}", "temp_step": f"{TEMP_STEP_C:g}",
    "cruise_min": CRUISE_MIN_KMH, "cruise_max": CRUISE_MAX_KMH, "cruise_step": CRUISE_STEP_KMH,
    "trunk_max": TRUNK_MAX_KMH, "volume_max": VOLUME_MAX,
    "charge_min": CHARGE_LIMIT_MIN, "charge_max": CHARGE_LIMIT_MAX, "charge_step": CHARGE_LIMIT_STEP,
    "seat_heat_max": SEAT_HEAT_MAX, "comfort_step": f"{COMFORT_STEP_C:g}", "cruise_policy_max": CRUISE_POLICY_MAX_KMH,
    "volume_moving_max": VOLUME_MOVING_MAX, "low_tyre": LOW_TYRE_PSI,
    "brands": ["Cabin Assistant", "DriveMate", "the in-car assistant", "CarPilot"],
}


def nearest_step(value: float, step: float) -> float:
    """`value` rounded to the nearest multiple of `step` (halves up), as the policy asks for converted settings."""
    return float(int(value / step + 0.5) * step)
