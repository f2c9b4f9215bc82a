"""Asking the client to refresh code lenses when the call graph changed (an edit in
another file may add a caller here): at most once per ``REFRESH_DEBOUNCE_S``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

REFRESH_DEBOUNCE_S = 0.3
_KEY = ("lens",)


def schedule_refresh(ls: CodeloupeServer) -> None:
    """Ask the client to refresh code lenses soon (when it supports that)."""
    caps = ls.client_capabilities.workspace if ls.client_capabilities else None
    lens_caps = caps.code_lens if caps else None
    if not (lens_caps and lens_caps.refresh_support) or ls.loop is None or ls.stopping.is_set():
        return
    if _KEY in ls.debounce:
        return  # one is on its way

    def fire() -> None:
        if ls.stopping.is_set():
            return
        try:
            fut = ls.workspace_code_lens_refresh(None)
        except Exception as exc:  # no connection any more
            log.debug("codeloupe: codeLens refresh failed: %s", exc)
            return
        fut.add_done_callback(lambda f: f.cancelled() or f.exception() is None or log.debug(
            "codeloupe: codeLens refresh failed: %s", f.exception()))

    ls.debounce.call_later(_KEY, REFRESH_DEBOUNCE_S, fire)
