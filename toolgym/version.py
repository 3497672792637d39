"""Package and output-schema versions, recorded in every dataset row."""

__version__ = "0.1.0"
# Bumped whenever the layout of a written dataset row changes.
SCHEMA_VERSION = "3"
