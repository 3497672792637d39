"""What a call trace says of an argument the gold works out rather than copies (`Step.derived`):
the value as the call writes it and how it came to be ('I compute temperature_c=19.0 rather than
copy a value seen: the convert_units result rounded to the nearest 0.5 °C, the car's step')."""

from __future__ import annotations

import json

from toolgym.envs.phrasing import join_words
from toolgym.envs.task import Step


def worked_out(step: Step, cited: str = "") -> tuple[str, str]:
    """The arguments a step works out rather than copies (`Step.derived`), as the call writes them
    ('temperature_c=19.0'), and how: ('', '') for a step that copies every argument. Where they are
    worked out in several ways, each way names its arguments ('...the driver (zone); ...'). A value
    the evidence `cited` quotes (words the user said) is where it came from: not worked out."""
    worked: dict[str, list[str]] = {}  # how -> the arguments worked out that way
    for call in step.calls:
        for name, value in call.arguments.items():
            if name in step.derived and f'"{value}"' not in cited:
                worked.setdefault(step.derived[name], []).append(f"{name}={json.dumps(value, ensure_ascii=False)}")
    if not worked:
        return "", ""
    arguments = join_words(list(dict.fromkeys(a for found in worked.values() for a in found)))
    if len(worked) == 1:
        return arguments, next(iter(worked))
    names = {how: ", ".join(dict.fromkeys(a.split("=", 1)[0] for a in found)) for how, found in worked.items()}
    return arguments, "; ".join(f"{how} ({names[how]})" for how in worked)
