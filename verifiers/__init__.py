"""Verifiers: pure scoring functions (task, trajectory) -> Score, and their composition.

This folder is the package `toolgym.verifiers`. Python run from the repository root also finds
it as a top-level `verifiers`, the name of an unrelated PyPI package (an RL environment
library); imported under that name it hands over to the installed package, or fails as a
missing module would, so `import verifiers` means the same here as anywhere else.
"""

if __name__ == "verifiers":
    import importlib.machinery
    import importlib.util
    import os
    import sys

    def _hand_over() -> None:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        others = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        spec = importlib.machinery.PathFinder.find_spec("verifiers", others)
        if spec is None or spec.loader is None:
            del sys.modules["verifiers"]
            raise ModuleNotFoundError(
                "No module named 'verifiers' (the PyPI package is not installed; this repository's "
                "verifiers/ folder is imported as `toolgym.verifiers`)",
                name="verifiers",
            )
        module = importlib.util.module_from_spec(spec)
        sys.modules["verifiers"] = module  # the import statement returns what sys.modules holds
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules["verifiers"]
            raise

    _hand_over()
else:
    from .checks import CHECKS
    from .compose import ACTION_PRESET, NO_TOOL_PRESET, Composite, preset_for, score_trajectory
    from .regrade import verify
    from .score import Score

    __all__ = [
        "ACTION_PRESET",
        "CHECKS",
        "NO_TOOL_PRESET",
        "Composite",
        "Score",
        "preset_for",
        "score_trajectory",
        "verify",
    ]
