"""The version of the index's tables (a change rebuilds the index), apart from their
columns (``schema``: pyarrow) so that what only compares it imports nothing heavy."""

SCHEMA_VERSION = 2
