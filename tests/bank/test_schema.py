"""Schema validation: every error names the file, the dotted field and the problem."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from checkers.bank import BankError, load_bank, load_question_file, parse_yaml, validate_question

FILE = "questions/L1/example.yaml"


def minimal() -> dict:
    return {
        "id": "example-question",
        "ref": "Q1",
        "level": "L1",
        "tags": ["kl"],
        "title": {"en": "Title", "zh": "标题"},
        "prompt": {"en": "p = {{p}}", "zh": "p = {{p}}"},
        "params": {"p": {"uniform": [0.2, 0.8], "round": 2}},
        "parts": [{
            "id": "a",
            "kind": "numeric",
            "prompt": {"en": "Compute 2p.", "zh": "计算 2p。"},
            "expected": {"expr": "2*p"},
            "mistakes": [{"expr": "p", "note": "forgot-two",
                          "feedback": {"en": "Times two.", "zh": "乘以二。"}}],
        }],
        "solution": {
            "key_points": {"en": ["k"], "zh": ["要点"]},
            "pitfalls": {"en": ["p"], "zh": ["坑"]},
            "worked": {"en": "2 × {{p}}", "zh": "2 × {{p}}"},
        },
    }


def error_of(data, file=FILE) -> BankError:
    with pytest.raises(BankError) as info:
        validate_question(data, file)
    err = info.value
    assert err.file == FILE if file == FILE else True
    assert FILE in str(err) if file == FILE else True
    return err


def test_minimal_is_valid():
    validate_question(minimal(), FILE)


def mutate(path, value):
    data = minimal()
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize("path, value, field, words", [
    (["colour"], "red", "colour", "unknown key"),
    (["title", "zh"], KeyError, "title.zh", "missing"),
    (["prompt", "en"], KeyError, "prompt.en", "missing"),
    (["prompt", "zh"], "", "prompt.zh", "non-empty"),
    (["id"], "Bad_Id!", "id", "bad id"),
    (["id"], "ab", "id", "bad id"),
    (["ref"], "Q26", "ref", "Q1..Q25"),
    (["level"], "L4", "level", "bad level"),
    (["tags"], [], "tags", "non-empty"),
    (["parts"], [], "parts", "non-empty"),
    (["solution", "worked"], KeyError, "solution.worked", "missing"),
    (["solution", "pitfalls", "zh"], [], "solution.pitfalls.zh", "non-empty"),
    (["prompt", "en"], "q = {{q}}", "prompt.en", "names no parameter"),
    (["params", "p"], {"uniform": [0.8, 0.2]}, "params.p", "low > high"),
    (["params", "p"], {"uniform": [0, 1], "randint": [1, 2]}, "params.p", "exactly one"),
    (["params", "p"], {"uniform": [0, 1], "rounding": 2}, "params.p.rounding", "unknown key"),
])
def test_top_level_errors_name_field(path, value, field, words):
    err = error_of(mutate(path, value))
    assert err.field == field, str(err)
    assert words in err.problem
    assert str(err).startswith(f"{FILE}: {field}: ")


def test_part_errors_name_part_field():
    data = minimal()
    data["parts"][0]["kind"] = "telepathy"
    err = error_of(data)
    assert err.field == "parts[0].kind" and "unknown part kind" in err.problem

    data = minimal()
    data["parts"][0]["colour"] = 1
    assert error_of(data).field == "parts[0].colour"

    data = minimal()
    data["parts"].append(copy.deepcopy(data["parts"][0]))
    err = error_of(data)
    assert err.field == "parts[1].id" and "duplicate part id" in err.problem

    data = minimal()
    data["parts"][0]["id"] = "A B"
    assert error_of(data).field == "parts[0].id"

    data = minimal()
    data["parts"][0]["mistakes"][0]["note"] = "Bad Note"
    assert error_of(data).field == "parts[0].mistakes[0].note"

    data = minimal()
    del data["parts"][0]["mistakes"][0]["feedback"]["zh"]
    assert error_of(data).field == "parts[0].mistakes[0].feedback.zh"

    data = minimal()
    data["parts"][0]["mistakes"][0]["feedback"]["en"] = "see {{nothing}}"
    err = error_of(data)
    assert err.field == "parts[0].mistakes[0].feedback.en" and "{{nothing}}" in err.problem


def test_kind_validate_spec_is_delegated():
    data = minimal()
    data["parts"][0] = {"id": "c", "kind": "choice", "prompt": {"en": "Pick", "zh": "选"},
                        "options": [{"id": "a", "text": {"en": "A", "zh": "甲"}}], "correct": "z"}
    err = error_of(data)
    assert err.field == "parts[0]" and "choice" in err.problem


def test_needs_a_machine_graded_part():
    data = minimal()
    data["parts"] = [{"id": "f", "kind": "freetext", "prompt": {"en": "Explain", "zh": "解释"}}]
    err = error_of(data)
    assert err.field == "parts" and "machine-graded" in err.problem


def test_folder_must_match_level():
    err = error_of(minimal(), "questions/L2/example.yaml")
    assert err.field == "level" and "folder" in err.problem


def test_failing_engine_call_in_params_names_the_param():
    data = minimal()
    data["params"]["k"] = {"call": "kl.no_such_function", "args": {}}
    err = error_of(data)
    assert err.field == "params.k" and "unknown" in err.problem


def test_placeholder_to_a_later_param_is_rejected():
    data = minimal()
    data["params"] = {"q": {"expr": "2*{{p}}"}, "p": {"uniform": [0.2, 0.8]}}
    err = error_of(data)
    assert err.field.startswith("params.q")


def test_yaml_errors_and_duplicate_keys(tmp_path: Path):
    bad = tmp_path / "L1" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text("id: x\nid: y\n", encoding="utf-8")
    with pytest.raises(BankError) as info:
        load_question_file(bad)
    assert "duplicate key" in info.value.problem and str(bad) in str(info.value)
    with pytest.raises(BankError) as info:
        parse_yaml("a: [1, 2\n", "f.yaml")
    assert "line" in info.value.field


def test_duplicate_ids_across_files(tmp_path: Path):
    from checkers.bank import dump_question

    folder = tmp_path / "L1"
    folder.mkdir()
    for name in ("one.yaml", "two.yaml"):
        (folder / name).write_text(dump_question(minimal()), encoding="utf-8")
    with pytest.raises(BankError) as info:
        load_bank(tmp_path)
    assert info.value.field == "id" and "duplicate id" in info.value.problem
    assert "two.yaml" in info.value.file


def test_choice_shuffle_key():
    base = minimal()
    base["parts"][0] = {"id": "c", "kind": "choice", "prompt": {"en": "Pick", "zh": "选"},
                        "options": [{"id": "a", "text": {"en": "A", "zh": "甲"}},
                                    {"id": "b", "text": {"en": "B", "zh": "乙"}}], "correct": "a"}
    for value in (True, False):
        data = copy.deepcopy(base)
        data["parts"][0]["shuffle"] = value
        validate_question(data, FILE)
    data = copy.deepcopy(base)
    data["parts"][0]["shuffle"] = "no"
    err = error_of(data)
    assert err.field == "parts[0].shuffle" and "true or false" in err.problem
    data = minimal()  # not a choice part: the key is unknown there
    data["parts"][0]["shuffle"] = False
    assert error_of(data).field == "parts[0].shuffle"
