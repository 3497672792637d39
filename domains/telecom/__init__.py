"""Telecom: mobile support with two sides in control.

The agent holds the account (customers, lines, plans, bills, outages); the customer holds the
phone, whose settings only the customer's own tools (caller="user") can change. Tasks set
faults into the world and are solved when both sides are right: the account as the policy
allows, and a phone whose speed test passes.
"""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "telecom"
VERSION = 0  # bump when tools, policy, world or rewards change: the id is toolgym/Telecom-v0
