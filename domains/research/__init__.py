"""The research domain: search and read an offline web, combine what the pages say, and answer
with the facts and the pages they came from.

The web (see world.py) is generated from the world seed: encyclopedia articles about made-up
organisations, people, cities, products and events, with mirrors, contradicting directory
listings, news and blogs around them, searched with SQLite FTS5 (BM25). Every tool reads.
"""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "research"
VERSION = 2  # bump when tools, policy, world or rewards change: the id is toolgym/Research-v2
