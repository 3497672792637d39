"""Banking: identity first, limits and consent before money moves, answers from the bank's own articles.

The agent verifies the caller (`verify_identity`) before any account data is shown; tools show
masked card and account numbers only; fees and product terms come from the knowledge base.
"""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "banking"
VERSION = 1  # bump when tools, policy, world or rewards change: the id is toolgym/Banking-v1
