"""codeloupe: a language server and CLI that understand a whole codebase."""

__version__ = "0.1.0"
