"""The vehicle domain: an in-car assistant controlling one car of a fleet, within the car's own
limits (the tools refuse what the car cannot do) and the policy's rules (what it must not do)."""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "vehicle"
VERSION = 3  # bump when tools, policy, world or rewards change: the id is toolgym/Vehicle-v3
