"""Settings of the engine, shared by the CLI and the language server."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .embed import DEFAULT_MODEL
from .scan import DEFAULT_MAX_BYTES

INDEX_DIR = ".codeloupe"


@dataclass
class Settings:
    model: str = DEFAULT_MODEL  # "default" (bundled all-MiniLM-L6-v2), a hub name or a path
    max_tokens: int = 256  # model input cut-off; 256 measured the best speed/quality trade
    trust_remote_code: bool = False  # needed by some models (jina-embeddings-v2-base-code)
    index_uri: str | None = None  # default: <root>/.codeloupe; may be s3://…
    include: list[str] = field(default_factory=list)  # gitignore-style globs; empty = all
    exclude: list[str] = field(default_factory=list)
    max_file_bytes: int = DEFAULT_MAX_BYTES
    workers: int = 0  # parse processes; 0 = one per core
    batch_size: int = 32

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        s = cls()
        if os.environ.get("CODELOUPE_MODEL"):
            s.model = os.environ["CODELOUPE_MODEL"]
        if os.environ.get("CODELOUPE_INDEX_URI"):
            s.index_uri = os.environ["CODELOUPE_INDEX_URI"]
        for key, value in overrides.items():
            if value is not None:
                setattr(s, key, value)
        return s

    def index_location(self, root: Path) -> str:
        if self.index_uri:
            return self.index_uri
        return str(root / INDEX_DIR)
