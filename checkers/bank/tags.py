"""The curated topic list: ``tags.yml`` at the root of a question folder, ``{tag: {en, zh}}``.

A bank folder that has this file may only use its tags (``load_bank_files`` checks every question), so
filters and search group questions by a few dozen topics instead of near-duplicate spellings. The file
is not a question: :func:`checkers.bank.question_files` skips it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

from .fields import BankError

TAGS_FILE = "tags.yml"
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_TAGS = 40  # a list a learner can scan in one filter menu


def validate_tag_list(data: Any, file: Any = None) -> dict[str, dict[str, str]]:
    """``{tag: {"en": name, "zh": name}}``, checked: slug ids, both names non-empty; raises BankError."""
    if not isinstance(data, dict) or not data:
        raise BankError(file, "(top level)", "must be a mapping tag -> {en, zh}")
    if len(data) > MAX_TAGS:
        raise BankError(file, "(top level)", f"{len(data)} tags: at most {MAX_TAGS}")
    out: dict[str, dict[str, str]] = {}
    for tag, names in data.items():
        if not isinstance(tag, str) or not TAG_RE.match(tag):
            raise BankError(file, str(tag), "a tag is a slug [a-z0-9-] of at most 40 characters")
        if not isinstance(names, dict) or set(names) != {"en", "zh"}:
            raise BankError(file, tag, "must have exactly the names en and zh")
        for lang in ("en", "zh"):
            if not isinstance(names[lang], str) or not names[lang].strip():
                raise BankError(file, f"{tag}.{lang}", "must be a non-empty string")
        out[tag] = {"en": names["en"], "zh": names["zh"]}
    return out


def load_tag_list(root: str | Path) -> dict[str, dict[str, str]] | None:
    """The curated list of the question folder ``root`` (``None`` when it has no ``tags.yml``)."""
    from .loader import parse_yaml  # local: the loader imports this module at its top

    root = Path(root)
    path = root / TAGS_FILE if root.is_dir() else root.parent / TAGS_FILE
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BankError(path, "(file)", f"cannot read: {exc}") from None
    return validate_tag_list(parse_yaml(text, path), path)


def check_tags(data: dict, tags: Iterable[str], file: Any = None) -> None:
    """Every tag of question ``data`` is one of ``tags``; raises BankError naming the first that is not."""
    allowed = set(tags)
    for i, tag in enumerate(data.get("tags") or []):
        if tag not in allowed:
            raise BankError(file, f"tags[{i}]", f"unknown tag {tag!r}: not in the curated list {TAGS_FILE}")
