"""The curated tags of the served bank (``<QUIZ_BANK_PATH>/tags.yml``), read once per file change."""

from __future__ import annotations

import threading
from pathlib import Path

from flask import current_app, g
from checkers.bank import BankError
from checkers.bank.tags import TAGS_FILE, load_tag_list

_LOCK = threading.Lock()
_CACHE: dict[str, tuple[float, dict[str, dict[str, str]]]] = {}


def tag_names() -> dict[str, dict[str, str]]:
    """``{tag: {"en", "zh"}}`` in the file's order; empty when the bank has no list (or it is broken).
    Looked up once per request: a page names every tag it shows, and each lookup would stat the file."""
    names = g.get("_quiz_tag_names")
    if names is None:
        names = g._quiz_tag_names = _read_tag_names()
    return names


def _read_tag_names() -> dict[str, dict[str, str]]:
    root = Path(current_app.config.get("QUIZ_BANK_PATH") or "questions")
    path = root / TAGS_FILE
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    with _LOCK:
        hit = _CACHE.get(str(path))
        if hit and hit[0] == mtime:
            return hit[1]
    try:
        names = load_tag_list(root) or {}
    except BankError:
        current_app.logger.exception("the curated tag list does not load")
        names = {}
    with _LOCK:
        _CACHE[str(path)] = (mtime, names)
    return names


def tag_label(tag: str, lang: str) -> str:
    """The tag's name in ``lang`` (its id when the list does not name it)."""
    names = tag_names().get(tag) or {}
    return names.get(lang) or names.get("en") or tag
