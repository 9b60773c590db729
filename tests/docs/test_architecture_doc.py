"""docs/architecture.md stays true: every path and every ``quizapp.``/``checkers.`` name it gives exists, every
package of ``quizapp/`` and ``checkers/`` is on the page, its table of the grading package's parts lists them
in the order tests/test_layers_checkers.py enforces, and its worked example of a new answer kind runs.

The example kind's files are the fenced blocks each preceded by ``<!-- example-kind: <file> -->``. They are
written into a temporary package, which is imported (its last line registers the kind); the kind must then
keep the contract every kind keeps (tests/kinds/kind_contract.py) and grade answers to its starter question
through the app, its validate and attempt endpoints and its question page. The registry is put back after.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

import quiz_testing as testing
from temporary_kind import kind_package, run_own_tests
from checkers.bank import load_question_file, params_for
from checkers.kinds import base, kind_names

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
sys.path.insert(0, str(ROOT / "tests" / "kinds"))
sys.path.insert(0, str(ROOT / "tests"))
from kind_contract import CHECKS, check_page  # noqa: E402
from test_layers_checkers import LAYERS  # noqa: E402

PATH = re.compile(r"(?<![\w/.-])((?:quizapp|checkers|tests|docs|migrations|scripts|benchmarks|questions)/[\w./<>*-]*)")
NAME = re.compile(r"(?<![\w/.-])((?:quizapp|checkers)(?:\.[A-Za-z_]\w*)+)")
EXAMPLE = re.compile(r"^<!--\s*example-kind:\s*(\S+)\s*-->\s*$")
EXAMPLE_FILES = {"__init__.py", "checker.py", "partial.html", "starter.yaml", "messages.pot", "zh.po",
                 "tests/test_count.py"}
PACKAGE = "doc_example_count_kind"
VARIANT = 5


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _prose() -> str:
    """The page without the example kind's markers, whose paths are inside the example's own folder."""
    return "\n".join(line for line in _doc().splitlines() if not EXAMPLE.match(line.strip()))


# ------------------------------------------------------------------------------------ names and paths

def missing_paths(text: str) -> list[str]:
    """Paths in ``text`` (from the repository root) that do not exist. ``<name>`` stands for any name: the
    folder before it must exist; ``*`` is a glob that must match."""
    out = []
    for raw in sorted(set(PATH.findall(text))):
        path = raw.rstrip(".,:;")
        if "<" in path:
            ok = (ROOT / path.split("<", 1)[0]).is_dir()
        elif "*" in path:
            ok = any(ROOT.glob(path))
        else:
            ok = (ROOT / path).exists()
        if not ok:
            out.append(path)
    return out


def unresolved_names(text: str) -> list[str]:
    """Dotted names in ``text`` that are neither a module nor an attribute reached from one."""
    out = []
    for name in sorted(set(NAME.findall(text))):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                spec = importlib.util.find_spec(".".join(parts[:cut]))
            except ModuleNotFoundError:
                spec = None
            if spec is not None:
                break
        obj = importlib.import_module(".".join(parts[:cut]))
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            out.append(name)
    return out


def test_the_checks_of_paths_and_names_catch_what_is_gone():
    assert missing_paths("`quizapp/services/attempts.py` and `quizapp/services/gone.py`") == [
        "quizapp/services/gone.py"]
    assert missing_paths("`checkers/kinds/<name>/` `checkers/nothing/<name>/` `questions/L*/*.yaml`") == [
        "checkers/nothing/<name>/"]
    text = ("`quizapp.services.attempts.prepare_attempt`, `checkers.kinds.base.Kind.starter_file` and "
            "`quizapp.services.attempts.no_such_step`.")
    assert unresolved_names(text) == ["quizapp.services.attempts.no_such_step"]


def test_every_path_named_exists():
    assert missing_paths(_prose()) == []


def test_every_module_and_name_given_exists():
    assert unresolved_names(_doc()) == []


@pytest.mark.parametrize("package", ["quizapp", "checkers"])
def test_every_package_is_on_the_page(package):
    text = _doc()
    folders = sorted(p.name for p in (ROOT / package).iterdir() if (p / "__init__.py").is_file())
    assert folders
    absent = [f for f in folders if f"{package}/{f}/" not in text and not re.search(rf"\b{package}\.{f}\b", text)]
    assert absent == []


def test_the_table_of_checkers_lists_its_parts_in_the_enforced_order():
    section = _doc().split("### `checkers/`", 1)[1].split("\n### ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| `checkers/"):
            first = line.split("|")[1]
            rows.append({m.split("/")[1].removesuffix(".py") for m in re.findall(r"`(checkers/[^`]+)`", first)})
    assert rows == [set(row) for row in LAYERS]


# ------------------------------------------------------------------------------------ the example kind

def example_files(text: str) -> dict[str, str]:
    """The example kind's files: each fenced block preceded by an ``example-kind`` comment."""
    files: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = EXAMPLE.match(line.strip())
        if not m:
            continue
        start = next(j for j in range(i + 1, len(lines)) if lines[j].strip())
        assert lines[start].startswith("```"), f"line {i + 1}: the example-kind comment is not above a block"
        end = next(j for j in range(start + 1, len(lines)) if lines[j].strip() == "```")
        assert m.group(1) not in files, f"{m.group(1)} given twice"
        files[m.group(1)] = "\n".join(lines[start + 1:end]) + "\n"
    return files


def test_the_example_is_a_whole_kind_folder():
    files = example_files(_doc())
    assert set(files) == EXAMPLE_FILES
    assert files["checker.py"].rstrip().endswith("register_kind(CountKind())")  # registered on import


@pytest.fixture()
def example_kind(tmp_path):
    """The doc's example kind written into ``tmp_path``, imported (which registers it), then removed."""
    assert "count" not in kind_names(), "the example's name is taken by a real kind: rename the example"
    with kind_package(tmp_path, PACKAGE, example_files(_doc())):
        yield base.get_kind("count")


def test_the_example_kinds_own_tests_pass(example_kind):
    assert run_own_tests(f"{PACKAGE}.tests.test_count") == 2


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_example_kind_keeps_the_contract(example_kind, check):
    assert example_kind.folder.name == PACKAGE
    check(example_kind)


def test_the_example_kind_grades_through_the_app(example_kind, tmp_path):
    from quizapp.storage.db import get_db

    data = load_question_file(example_kind.starter_file)
    k = int(params_for(data, VARIANT)["k"])
    pairs = math.comb(k, 2)  # the comparisons one ranking of k answers gives
    (tmp_path / "app").mkdir()
    app = testing.make_app(tmp_path / "app")
    try:
        testing.load_sample(app, data)
        client = app.test_client()
        qid = data["id"]

        shown = client.get(f"/api/v1/questions/{qid}?variant={VARIANT}").get_json()
        assert shown["parts"][0]["kind"] == "count" and "expected" not in shown["parts"][0]

        def validate(answer):
            return client.post(f"/api/v1/questions/{qid}/validate",
                               json={"variant": VARIANT, "part": "a", "answer": answer}).get_json()

        read = validate(f" {pairs}.0")
        assert read["valid"] is True and read["interpreted_as"]["text"] == str(pairs)
        unread = validate("six")
        assert unread["valid"] is False and unread["error"]["column"] == 0

        def submit(answer):
            return client.post(f"/api/v1/questions/{qid}/attempts", json={"variant": VARIANT, "answers": {"a": answer}})

        right = submit(str(pairs))
        assert right.status_code == 201, right.get_json()
        body = right.get_json()
        assert body["parts"]["a"]["status"] == "correct" and body["score"] == body["max_score"] == 1
        assert body["parts"]["a"]["interpreted_as"]["text"] == str(pairs)
        ordered = submit(str(k * (k - 1))).get_json()["parts"]["a"]  # the pitfall: ordered pairs
        assert (ordered["status"], ordered["counted"]) == ("incorrect", True)
        unreadable = submit("six").get_json()["parts"]["a"]
        assert (unreadable["status"], unreadable["counted"]) == ("invalid", False)
        r = submit(pairs)  # a JSON number: the kind takes text only
        assert r.status_code == 422 and r.get_json()["error"]["field"] == "answers.a"

        check_page(example_kind, app)
    finally:
        get_db(app).dispose()


def test_the_kinds_import_line_lists_every_kind_folder():
    """The one line outside a kind's folder: ``from . import ...`` in checkers/kinds/__init__.py."""
    kinds = ROOT / "checkers" / "kinds"
    tree = ast.parse((kinds / "__init__.py").read_text(encoding="utf-8"))
    lines = [node for node in tree.body
             if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None
             and not {a.name for a in node.names} <= {"base"}]
    assert len(lines) == 1
    folders = {p.name for p in kinds.iterdir() if (p / "checker.py").is_file()}
    assert {a.name for a in lines[0].names} == folders
