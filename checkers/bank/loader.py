"""Reading, writing and hashing question files (YAML, one question per file)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

import yaml

from ..limits import YAML_MAX_DEPTH
from .fields import BankError
from .schema import validate_question
from .tags import TAGS_FILE, check_tags, load_tag_list

SUFFIXES = (".yaml", ".yml")


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (PyYAML silently keeps the last one)."""


# libyaml's parser (C) reads a question file about ten times faster than the pure-Python one; the objects
# are still built by the same safe constructors, duplicate keys refused alike. Where PyYAML was built without
# libyaml the pure-Python loader does everything.
_CLoader = getattr(yaml, "CSafeLoader", None)


class _StrictFastLoader(_CLoader or yaml.SafeLoader):  # type: ignore[misc,valid-type]
    """CSafeLoader that refuses duplicate keys; used only on documents whose nesting was checked first."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in out:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, f"found duplicate key {key!r}",
                key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=deep)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictFastLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _check_nesting(text: str, file: Any) -> None:
    """Refuse a document nested deeper than :data:`checkers.limits.YAML_MAX_DEPTH` from libyaml's event
    stream (an iterative parser: no recursion, and it stops at the first level too deep)."""
    too_deep = f"the document is nested more than {YAML_MAX_DEPTH} levels deep"
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_CLoader):
            if isinstance(event, _OPEN):
                depth += 1
                if depth > YAML_MAX_DEPTH:
                    raise BankError(file, "(yaml)", too_deep)
            elif isinstance(event, _CLOSE):
                depth -= 1
    except yaml.YAMLError as exc:
        # The libyaml of newer PyYAML wheels (seen with 6.0.4) refuses 1,000 levels of flow collections in
        # its scanner, which reads ahead of the events: the same refusal, said the same way.
        if "nesting depth" in str(getattr(exc, "problem", "") or ""):
            raise BankError(file, "(yaml)", too_deep) from None
        raise


def parse_yaml(text: str, file: Any = None) -> Any:
    """The YAML document ``text`` (safe types only, duplicate keys refused); raises :class:`BankError`."""
    try:
        if _CLoader is None:
            return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - SafeLoader subclass
        _check_nesting(text, file)
        return yaml.load(text, Loader=_StrictFastLoader)  # noqa: S506 - CSafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(yaml)"
        problem = getattr(exc, "problem", None) or str(exc)
        raise BankError(file, where, f"not valid YAML: {problem}", line=mark.line + 1 if mark else None,
                        column=mark.column + 1 if mark else None) from None
    except RecursionError:
        # PyYAML composes nodes recursively: a document nested thousands of levels deep exhausts the
        # stack before any depth check on the result can run.
        raise BankError(file, "(yaml)", "the document is nested too deeply") from None
    except ValueError as exc:
        # A scalar the SafeLoader resolves but cannot build: an integer longer than Python converts
        # (4300 digits) or a timestamp that is no date (2026-13-45). The text before ';' names the value
        # without Python's advice on interpreter settings.
        raise BankError(file, "(yaml)", f"not valid YAML: {str(exc).split(';')[0]}") from None


def read_question_file(path: str | Path) -> Any:
    """Read and parse one question file, not validated (:func:`load_question_file` validates it too);
    raises :class:`BankError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BankError(path, "(file)", f"cannot read: {exc}") from None
    return parse_yaml(text, path)


def load_question_file(path: str | Path) -> dict:
    """Read and validate one question file; raises :class:`BankError`."""
    data = read_question_file(path)
    validate_question(data, path)
    return data


def question_files(root: str | Path) -> list[Path]:
    root = Path(root)
    if root.is_file():
        return [root]
    # the curated tag list sits next to the questions but is not one
    return sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file() and p.name != TAGS_FILE)


def load_bank_files(root: str | Path | Iterable[str | Path]) -> list[tuple[Path, dict]]:
    """(path, question) for every question file under ``root`` (or in the given paths)."""
    roots = [root] if isinstance(root, (str, Path)) else list(root)
    files: list[Path] = []
    for r in roots:
        files.extend(question_files(r))
    curated = {}
    for r in roots:  # a folder with a tags.yml only admits its tags
        curated.update(load_tag_list(r) or {})
    seen: dict[str, Path] = {}
    out: list[tuple[Path, dict]] = []
    for path in files:
        data = load_question_file(path)
        if curated:
            check_tags(data, curated, path)
        if data["id"] in seen:
            raise BankError(path, "id", f"duplicate id {data['id']!r} (also in {seen[data['id']]})")
        seen[data["id"]] = path
        out.append((path, data))
    return out


def load_bank(root: str | Path) -> list[dict]:
    """Every question under ``root`` (sorted by path), validated; ids must be unique across files."""
    return [data for _, data in load_bank_files(root)]


def content_hash(data: Any) -> str:
    """sha256 (hex) of the canonical JSON form: key order and YAML layout do not change it."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                           allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------------
# Dumping: readable YAML (source key order, short scalar lists and small specs in flow style,
# multi-line text as literal blocks) that loads back to an equal object.

class _Dumper(yaml.SafeDumper):
    pass


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float)) or (isinstance(v, str) and "\n" not in v)


def _flow_ok(v: Any, depth: int = 0) -> bool:
    if _is_scalar(v):
        return not isinstance(v, str) or len(v) <= 40
    if isinstance(v, list) and depth < 3:
        return all(_flow_ok(x, depth + 1) for x in v)
    if isinstance(v, dict) and depth < 2:
        return all(_flow_ok(x, depth + 1) for x in v.values())
    return False


def _short(v: Any) -> bool:
    return len(json.dumps(v, ensure_ascii=False)) <= 90


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


def _represent_list(dumper: yaml.SafeDumper, data: list) -> yaml.Node:
    flow = _flow_ok(data) and _short(data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def _represent_dict(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
    flow = bool(data) and _flow_ok(data) and _short(data)
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=flow)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(dict, _represent_dict)


def dump_question(data: Any) -> str:
    """YAML text of a question; ``parse_yaml(dump_question(x)) == x``."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110,
                     default_flow_style=False)
