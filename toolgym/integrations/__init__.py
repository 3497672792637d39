"""Glue for RL trainers and agent clients: toolgym's worlds in the shapes their loops take.

`trl` (TRL's GRPOTrainer environments), `openenv` (`toolgym serve-env`, an OpenEnv server and
client), `mcp_server` (`toolgym serve-mcp`), `verifiers_v1` (verifiers' OpenEnv taskset), `skyrl`
(a skyrl-gym BaseTextEnv), `nemo_gym` (a NeMo Gym resources server), `verl` (a verl agent loop);
`episode` is the core they share. Each needs its framework's optional extra (docs/rl.md).
"""
