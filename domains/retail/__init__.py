"""The retail reference domain: an online shop's customers, catalog, orders and service policy."""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "retail"
VERSION = 1  # bump when tools, policy, world or rewards change: the id is toolgym/Retail-v1
