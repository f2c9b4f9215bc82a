"""Tags queries, one folder per language, shipped in the wheel as package data."""
