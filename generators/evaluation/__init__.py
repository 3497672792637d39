"""Evaluation: frozen eval sets, a served model run k times on each task, pass^k and per-component reports.

    eval_set.py   `toolgym eval-set`: draw, write, read and check a frozen set of tasks
    held_out.py   keeping a training corpus apart from the sets (the generation job's hook)
    runner.py     `toolgym eval`: k trials per task through the OpenAI path, resumable
    results.py    the results directory: one JSON line per trial, failures, resume
    metrics.py    pass^k, pass@1, components, costs and first failures per group
    report.py     the markdown table and the HTML page with plots
    compare.py    two result folders side by side, with bootstrap intervals over tasks

Modules are imported by name (this package stays light: the job imports held_out.py).
"""
