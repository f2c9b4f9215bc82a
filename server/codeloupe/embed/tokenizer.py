"""The tokenizer of the onnx backend: the ``tokenizers`` library reading the model's
``tokenizer.json`` itself once it was found to give the same tokens as transformers'
``AutoTokenizer``, else ``AutoTokenizer``.

``AutoTokenizer`` is built on the same ``tokenizers`` object, but importing
transformers (and the torch it imports) takes 2-3 s of a 3 s model load, for a
query of a few milliseconds. So the first load of a model on onnx uses
``AutoTokenizer`` and checks it against ``tokenizers`` alone on ``SAMPLE`` (code,
prose, accents, CJK, control characters, texts over the cut-off) at the cut-off in
use; the outcome is kept beside the exported model (``CHECK_FILE``, with the digest of
``tokenizer.json``, the input names and ``model_max_length``). Later loads whose
cut-off was checked and found the same read ``tokenizer.json`` directly; any
difference, a changed file or a model that needs its own code
(``trust_remote_code``) keeps ``AutoTokenizer``. The export folder is named by the
model's files and the versions of transformers and the exporter
(``onnx_backend.cache_key``): a change of either checks again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CHECK_FILE = "tokenizer-check.json"
_CHECK_FORMAT = 1
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
_FIELDS = {"input_ids": "ids", "token_type_ids": "type_ids", "attention_mask": "attention_mask"}
SAMPLE = [
    "", "x", "   \t\n  ", "Héllo WÖRLD, ça va? naïve façade", "日本語のテキストと中文字符", "emoji 🙂👍🏽 ok",
    "control \x00\x01\x7f and zero\u200bwidth\u00a0space", "CamelCaseName snake_case_name kebab-case-name",
    "def parse_header(line: str) -> tuple[str, str]:\n    name, _, value = line.partition(':')\n"
    "    return name.strip().lower(), value.strip()\n",
    "function total(items) { return items.reduce((a, b) => a + b.price, 0); } // JS",
    "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 42); return 0; }",
    "where are identifiers split into words", "HTTP/1.1 200 OK\r\nContent-Type: text/html",
    "word " * 700, "supercalifragilisticexpialidocious" * 40,
    "import os, sys\n" + "x = [i ** 2 for i in range(10) if i % 3]\n" * 60,
]


class FastTokenizer:
    """``tokenizers.Tokenizer`` of a ``tokenizer.json``, called as the embedder calls
    transformers' tokenizers: a batch of texts → ``{input name: [ids per text]}``,
    unpadded, cut at ``max_length``."""

    def __init__(self, path: Path, input_names: Sequence[str], model_max_length: int | None) -> None:
        import tokenizers

        self._tok = tokenizers.Tokenizer.from_file(str(path))
        self._tok.no_padding()
        self._cut: int | None = -1
        self.model_input_names = list(input_names)
        self.model_max_length = model_max_length

    def __call__(self, texts: Sequence[str], add_special_tokens: bool = True,
                 truncation: bool = True, max_length: int | None = None) -> dict[str, list[list[int]]]:
        """The tokens of each text (call it under one lock: it sets the cut-off)."""
        cut = max_length if truncation else None
        if cut != self._cut:
            if cut:
                self._tok.enable_truncation(cut)
            else:
                self._tok.no_truncation()
            self._cut = cut
        encodings = self._tok.encode_batch(list(texts), add_special_tokens=add_special_tokens)
        return {name: [getattr(e, _FIELDS[name]) for e in encodings]
                for name in self.model_input_names}


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _read_check(folder: Path, tokenizer_json: Path) -> dict[str, Any] | None:
    """The check recorded in the export ``folder`` for this ``tokenizer.json``, if any."""
    try:
        check = json.loads((folder / CHECK_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (not isinstance(check, dict) or check.get("format") != _CHECK_FORMAT
            or check.get("tokenizer_sha256") != _digest(tokenizer_json)):
        return None
    names, checked = check.get("input_names"), check.get("max_lengths")
    if (not isinstance(names, list) or not names or not set(names) <= set(_FIELDS)
            or not isinstance(checked, list) or not isinstance(check.get("same"), bool)):
        return None
    return check


def checked_tokenizer(folder: Path, transformer_dir: Path, trust_remote_code: bool,
                      max_length: Callable[[int | None], int]) -> FastTokenizer | None:
    """The direct tokenizer of the model, when a check in the export ``folder`` found it
    the same as ``AutoTokenizer`` at the cut-off ``max_length(model_max_length)`` gives;
    else None (load ``AutoTokenizer``, then ``record_check``)."""
    tokenizer_json = transformer_dir / "tokenizer.json"
    if trust_remote_code or not tokenizer_json.is_file():
        return None
    check = _read_check(folder, tokenizer_json)
    if check is None or not check["same"]:
        return None
    model_max = check.get("model_max_length")
    model_max = model_max if isinstance(model_max, int) else None
    if max_length(model_max) not in check["max_lengths"]:
        return None
    try:
        return FastTokenizer(tokenizer_json, check["input_names"], model_max)
    except Exception as exc:  # an unreadable file: the ordinary way
        log.info("codeloupe: cannot read %s directly: %s", tokenizer_json, exc)
        return None


def record_check(folder: Path, transformer_dir: Path, auto: Any, input_names: Sequence[str],
                 max_length: int, trust_remote_code: bool) -> bool | None:
    """Compare ``auto`` (an ``AutoTokenizer``) with the direct tokenizer of the same
    ``tokenizer.json`` on ``SAMPLE`` at ``max_length`` and keep the outcome in the
    export ``folder`` (with the cut-offs checked before); True when they agree, None
    when there is nothing to check or the check cannot be kept."""
    tokenizer_json = transformer_dir / "tokenizer.json"
    if trust_remote_code or not tokenizer_json.is_file() or not folder.is_dir():
        return None
    names = [n for n in input_names if n in _FIELDS]
    model_max = getattr(auto, "model_max_length", None)
    model_max = model_max if isinstance(model_max, int) else None
    try:
        direct = FastTokenizer(tokenizer_json, names, model_max)
        want = auto(SAMPLE, add_special_tokens=True, truncation=True, max_length=max_length)
        got = direct(SAMPLE, truncation=True, max_length=max_length)
        same = list(names) == list(input_names) and all(
            [list(x) for x in want[n]] == got[n] for n in names)
    except Exception as exc:
        log.info("codeloupe: cannot compare the tokenizers of %s: %s", transformer_dir, exc)
        same = False
    before = _read_check(folder, tokenizer_json)
    checked = sorted(set(before["max_lengths"]) if before and before["same"] and same else set())
    check = {"format": _CHECK_FORMAT, "tokenizer_sha256": _digest(tokenizer_json),
             "input_names": names, "model_max_length": model_max, "same": same,
             "max_lengths": sorted({*checked, max_length}) if same else []}
    tmp = folder / f".{CHECK_FILE}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(check), encoding="utf-8")
        os.replace(tmp, folder / CHECK_FILE)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        log.info("codeloupe: cannot keep the tokenizer check in %s: %s", folder, exc)
        return None
    return same
