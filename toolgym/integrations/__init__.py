"""Glue for RL trainers: toolgym's worlds in the shapes their loops take (`trl`: TRL's GRPOTrainer)."""
