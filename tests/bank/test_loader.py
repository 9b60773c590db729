"""Loading the bank, lossless YAML round trip, content hashes and the command line."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from checkers.bank import (content_hash, dump_question, load_bank, load_bank_files, load_question_file,
                           parse_yaml)
from checkers.bank.__main__ import main

ROOT = Path(__file__).resolve().parents[2] / "questions"
FILES = sorted(p for p in ROOT.rglob("*.yaml"))


def test_bank_is_not_empty():
    assert len(FILES) >= 20
    assert len(list((ROOT / "L1").glob("*.yaml"))) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_round_trip(path: Path):
    data = load_question_file(path)
    text = dump_question(data)
    again = parse_yaml(text, path)
    assert again == data
    assert list(again) == list(data)  # key order kept
    assert content_hash(again) == content_hash(data)
    assert dump_question(again) == text  # dumping is stable


def test_l1_bank_loads_with_unique_ids():
    questions = load_bank(ROOT / "L1")
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids))
    refs = sorted(q["ref"] for q in questions if "ref" in q)
    assert refs == sorted(f"Q{i}" for i in range(1, 11))
    for path, q in load_bank_files(ROOT / "L1"):
        assert q["level"] == "L1" and path.parent.name == "L1"


def test_content_hash_is_stable_and_content_sensitive():
    data = load_question_file(FILES[0])
    h = content_hash(data)
    assert len(h) == 64 and h == content_hash(copy.deepcopy(data))
    reordered = dict(reversed(list(data.items())))
    assert content_hash(reordered) == h  # layout and key order do not matter
    changed = copy.deepcopy(data)
    changed["title"]["en"] += "!"
    assert content_hash(changed) != h


def test_dump_is_readable():
    data = load_question_file(ROOT / "L1" / "q04-k3-estimator.yaml")
    text = dump_question(data)
    assert text.startswith("id: q04-k3-estimator\n")
    assert "prompt:\n  en: |" in text  # multi-line text as a literal block
    assert "{uniform: [-2.0, -0.2], round: 2}" in text  # short specs in flow style
    assert "估计量" in text  # unicode kept readable


def test_tricky_scalars_round_trip():
    data = {"a": "yes", "b": "1e-3", "c": "", "d": "line\nwith trailing space \n", "e": [1.0e-9, -0.0, 3],
            "f": {"g": None, "h": True, "i": "null"}, "j": "  leading", "k": "# not a comment"}
    assert parse_yaml(dump_question(data)) == data


def test_cli_validate_and_selftest(capsys):
    l1 = str(ROOT / "L1")
    assert main(["validate", l1]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["selftest", "--seeds", "2", str(ROOT / "L1" / "q01-kl-definition-properties.yaml")]) == 0
    assert "1 of 1 questions pass" in capsys.readouterr().out


def test_cli_reports_failures(tmp_path: Path, capsys):
    folder = tmp_path / "L1"
    folder.mkdir()
    data = load_question_file(ROOT / "L1" / "q01-kl-definition-properties.yaml")
    data["level"] = "L2"
    (folder / "broken.yaml").write_text(dump_question(data), encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "broken.yaml: level:" in out

    data["level"] = "L1"
    data["parts"][0]["expected"] = {"expr": "a"}  # the answer no longer matches the mistakes' premise
    data["parts"][0]["mistakes"][0] = {"expr": "a", "note": "same-as-answer",
                                       "feedback": {"en": "x", "zh": "x"}}
    (folder / "broken.yaml").write_text(dump_question(data), encoding="utf-8")
    assert main(["selftest", "--seeds", "2", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "same-as-answer" in out


def test_nesting_is_bounded_before_the_document_is_built():
    from checkers.bank import BankError, parse_yaml
    from checkers.limits import YAML_MAX_DEPTH

    at_limit = "[" * YAML_MAX_DEPTH + "]" * YAML_MAX_DEPTH
    value = parse_yaml(at_limit)
    for _ in range(YAML_MAX_DEPTH - 1):
        value = value[0]
    assert value == []
    for depth in (YAML_MAX_DEPTH + 1, 200_000):  # the second would overflow the C composer's stack
        with pytest.raises(BankError, match=f"nested more than {YAML_MAX_DEPTH} levels"):
            parse_yaml("[" * depth + "]" * depth)
    deep_block = "".join("  " * i + "k:\n" for i in range(YAML_MAX_DEPTH + 1)) + "  " * (YAML_MAX_DEPTH + 1) + "v\n"
    with pytest.raises(BankError, match="nested more than"):
        parse_yaml(deep_block)


def test_duplicate_keys_and_syntax_errors_are_refused_with_their_place():
    from checkers.bank import BankError, parse_yaml

    with pytest.raises(BankError, match="duplicate key 'a'"):
        parse_yaml("a: 1\nb: 2\na: 3\n")
    with pytest.raises(BankError) as err:
        parse_yaml("a: [1, 2\nb: 3\n")
    assert err.value.line is not None and err.value.column is not None
