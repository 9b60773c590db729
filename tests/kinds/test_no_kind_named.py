"""No module outside ``checkers/kinds/`` names an answer kind: the service asks the registry and the kind's
hooks (``checkers.kinds.base.Kind``), so a new kind is its folder plus one registration line.

Scanned: every Python file of ``quizapp/`` and ``checkers/`` outside ``checkers/kinds/`` (string constants,
and imports of a kind's own modules), the templates and the browser scripts of ``quizapp/``. A string equal
to a kind's name is allowed only where its role says it is something else, each role named below, or on an
exact line of :data:`ALLOWED` (and each such line must still exist, so the list cannot go stale).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from checkers.kinds import kind_names

ROOT = Path(__file__).resolve().parents[2]
KINDS_DIR = ROOT / "checkers" / "kinds"
NAMES = frozenset(kind_names())

#: Calls whose second positional argument is another vocabulary that shares a word with a kind's name:
#: an engine parameter's type (``Param(name, "choice", ...)``) and the method an equivalence check used.
OTHER_VOCABULARY_CALLS = {"Param": 1, "EquivalenceResult": 1}
#: Dict keys whose values are JSON Schema vocabulary (``"type": "array"``; ``"required": ["code", ...]``).
SCHEMA_KEYS = {"type", "required"}

#: (file, stripped source line) where a kind's name is another word; nothing else may hold one.
ALLOWED: set[tuple[str, str]] = {
    # an HTML tag the sanitiser keeps
    ("quizapp/rendering.py",
     '"code", "pre", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",'),
    # the API error envelope's "code" field
    ("quizapp/httpkit/openapi.py",
     'return any(error.get("code") == rule["code"] and (named == rule["field"] or named.startswith('),
    # the parameter generator "choice" of a question file's params
    ("checkers/params.py",
     '_GENERATORS = ("uniform", "randint", "choice", "list", "simplex", "expr", "call", "value", "concat")'),
    ("checkers/params.py", 'if kind == "choice":'),
    ("checkers/params.py", 'options = spec["choice"]'),
    # the engine's parameter types
    ("checkers/reference/registry.py",
     'KINDS = ("tensor", "float", "int", "bool", "str", "choice", "labels", "tensor_or_float", "list")'),
    ("checkers/reference/tensors.py", 'if kind == "choice":'),
    # Intl.DateTimeFormat options
    ("quizapp/static/localtime.js",
     'year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",'),
}

#: Modules of one kind's folder that the service may import: the stand-alone check endpoints
#: (``POST /api/v1/check/<name>``) are that kind's own API feature, implemented in its folder.
STANDALONE_IMPORTS: set[tuple[str, str]] = {
    ("quizapp/api/questions.py", "checkers.kinds.derivation.standalone"),
    ("quizapp/api/questions.py", "checkers.kinds.symbolic.standalone"),
    ("quizapp/api/code.py", "checkers.kinds.code"),
    ("quizapp/api/code.py", "checkers.kinds.code.standalone"),
}

QUOTED = re.compile(r"""(?<![\w-])(['"])(%s)\1""" % "|".join(sorted(NAMES)))
#: A quoted word that is an HTML element's tag in a browser script (``el('code', ...)``).
DOM_TAG = re.compile(r"""(?:\bel|createElement)\(\s*$""")


def _python_files() -> list[Path]:
    files = sorted((ROOT / "quizapp").rglob("*.py")) + sorted((ROOT / "checkers").rglob("*.py"))
    return [p for p in files if not p.is_relative_to(KINDS_DIR)]


def _exempt(tree: ast.AST) -> set[int]:
    """ids of the string constants whose role is not a kind: dict keys, JSON Schema vocabulary, the
    other vocabularies' call arguments."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant):
                    out.add(id(key))
                    if key.value in SCHEMA_KEYS:
                        out.update(id(n) for n in ast.walk(value) if isinstance(n, ast.Constant))
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            at = OTHER_VOCABULARY_CALLS.get(name)
            if at is not None and len(node.args) > at:
                out.add(id(node.args[at]))
    return out


def _python_hits(path: Path) -> list[tuple[str, str, str]]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    exempt = _exempt(tree)
    rel = str(path.relative_to(ROOT))
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in exempt:
            hits.append((rel, lines[node.lineno - 1].strip(), node.value))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for module in modules:
                parts = module.split(".")
                if parts[:2] == ["checkers", "kinds"] and len(parts) > 2 and parts[2] in NAMES:
                    hits.append((rel, module, "import"))
    return hits


def _text_hits(path: Path) -> list[tuple[str, str, str]]:
    rel = str(path.relative_to(ROOT))
    hits = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for m in QUOTED.finditer(line):
            if path.suffix == ".js" and DOM_TAG.search(line[:m.start()]):
                continue
            hits.append((rel, line.strip(), m.group(2)))
    return hits


def _all_hits() -> list[tuple[str, str, str]]:
    hits = [h for p in _python_files() for h in _python_hits(p)]
    texts = sorted((ROOT / "quizapp" / "templates").rglob("*.html")) + sorted(
        p for p in (ROOT / "quizapp" / "static").rglob("*.js") if "vendor" not in p.parts)
    return hits + [h for p in texts for h in _text_hits(p)]


def test_the_scan_sees_every_kind_and_a_planted_name(tmp_path):
    """The scanner itself: it knows the registered kinds and catches a kind named in code, a template
    comparison and an import of a kind's module, while passing the named roles."""
    assert len(NAMES) >= 7
    name = sorted(NAMES)[0]
    src = tmp_path / "planted.py"
    src.write_text(f'import checkers.kinds.{name}\nif part.get("kind") == "{name}":\n    pass\n'
                   f'S = {{"type": "{name}", "{name}": 1}}\nP = Param("x", "{name}")\n', encoding="utf-8")
    tree = ast.parse(src.read_text())
    exempt = _exempt(tree)
    found = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == name
             and id(n) not in exempt]
    assert found == [2]
    assert QUOTED.search(f"{{% if part.kind == '{name}' %}}")
    assert not QUOTED.search(f"class=\"answer-{name}\"")


def test_no_module_outside_the_kinds_names_a_kind():
    hits = _all_hits()
    named = sorted({(f, line, word) for f, line, word in hits
                    if word != "import" and (f, line) not in ALLOWED})
    assert named == [], "a kind named outside checkers/kinds (add a hook to Kind instead):\n" + "\n".join(
        f"  {f}: {word!r} in {line}" for f, line, word in named)
    imports = sorted({(f, module) for f, module, word in hits if word == "import"} - STANDALONE_IMPORTS)
    assert imports == [], f"a kind's module imported outside checkers/kinds: {imports}"


def test_the_allowed_lines_are_still_there():
    """Every allowed line still holds its word (a moved or removed line leaves no stale exception)."""
    seen = {(f, line) for f, line, word in _all_hits() if word != "import"}
    assert ALLOWED - seen == set()
    used = {(f, module) for f, module, word in _all_hits() if word == "import"}
    assert STANDALONE_IMPORTS - used == set()
