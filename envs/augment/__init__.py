"""Tool-set augmentation: rows whose tools are renamed, described in other words, mixed with
distractors and shuffled, while the world runs and the verifiers judge the real tools.

`AugmentConfig` is the `augment:` section of a job config; `draw_transform(task, config)` gives
a task's `ToolTransform` (seeded by the task and the config); the transform maps schemas
(`apply`), calls both ways (`to_real`, `to_augmented`) and whole chats, and is recorded on
every row it shaped (`to_dict` / `from_dict`).
"""

from .config import AugmentConfig, DistractorConfig, augment_config
from .draw import draw_transform
from .naming import CONVENTIONS
from .transform import UNOFFERED, Resolved, ToolTransform

__all__ = [
    "CONVENTIONS",
    "UNOFFERED",
    "AugmentConfig",
    "DistractorConfig",
    "Resolved",
    "ToolTransform",
    "augment_config",
    "draw_transform",
]
