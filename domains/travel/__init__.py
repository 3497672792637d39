"""Travel: flights, hotels, fare rules, loyalty points, time zones and currencies.

A traveller books, changes and cancels flights and hotels; fare rules decide what is allowed and
what it costs (basic economy cannot change; cancelling within 24 hours of booking is free;
insurance only at booking). Times are stored in UTC and shown in each airport's zone by the
tools; amounts in other currencies come only from the conversion tool.
"""

# Read without building the domain (listing domains, Gymnasium ids); domain.py builds it on first use.
NAME = "travel"
VERSION = 1  # bump when tools, policy, world or rewards change: the id is toolgym/Travel-v1
