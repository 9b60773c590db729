"""Variants: deterministic per seed, different across seeds; the public view never leaks answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from checkers import grading
from checkers.bank import VARIANT_MAX, load_question_file, params_for, public_view, solution_view
from checkers.bank.variants import option_order

ROOT = Path(__file__).resolve().parents[2] / "questions"
FILES = sorted(ROOT.rglob("*.yaml"))
L1 = sorted((ROOT / "L1").glob("*.yaml"))
SEEDS = (0, 1, 7, 123_456, VARIANT_MAX - 1)


def _load(path):
    return load_question_file(path)


@pytest.mark.parametrize("path", L1, ids=lambda p: p.stem)
def test_params_deterministic_and_varying(path: Path):
    q = _load(path)
    first = [params_for(q, s) for s in range(10)]
    assert first == [params_for(q, s) for s in range(10)]
    if q.get("params"):
        distinct = {json.dumps(p, sort_keys=True) for p in first}
        assert len(distinct) >= 3, "ten seeds should give several different variants"
        prompts = {json.dumps({k: v for k, v in public_view(q, s, "en").items() if k != "variant"})
                   for s in range(10)}
        assert len(prompts) >= 3, "the numbers shown should change with the seed"


def test_seed_range_is_checked():
    q = _load(L1[0])
    for bad in (-1, VARIANT_MAX, 1.5, "3", True):
        with pytest.raises(ValueError):
            params_for(q, bad)


def _numbers(obj, out):
    if isinstance(obj, bool):
        return out
    if isinstance(obj, (int, float)):
        out.append(float(obj))
    elif isinstance(obj, list):
        for v in obj:
            _numbers(v, out)
    elif isinstance(obj, dict):
        for v in obj.values():
            _numbers(v, out)
    return out


def _shown(value: float, text: str) -> bool:
    for digits in (2, 3, 4, 6):
        s = f"{value:.{digits}f}".rstrip("0").rstrip(".")
        if len(s.replace("-", "").replace(".", "").lstrip("0")) >= 3 and _contains_number(text, s):
            return True
    return _contains_number(text, repr(value))


def _contains_number(text: str, number: str) -> bool:
    """``number`` appears in ``text`` as a whole number, not as the tail of a longer one ("1.2" in "-11.2")."""
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?!\d)", text) is not None


FORBIDDEN_KEYS = {"expected", "mistakes", "correct", "reference", "tolerance", "note", "feedback",
                  "solution", "key_points", "pitfalls", "worked", "params", "answer"}


def _keys(obj, out):
    if isinstance(obj, dict):
        out.update(obj)
        for v in obj.values():
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_public_view_never_leaks(path: Path):
    q = _load(path)
    for seed in SEEDS[:3]:
        params = params_for(q, seed)
        for lang in ("en", "zh"):
            view = public_view(q, seed, lang)
            assert view["id"] == q["id"] and view["variant"] == seed and view["level"] == q["level"]
            assert not (_keys(view, set()) & FORBIDDEN_KEYS)
            text = json.dumps(view, ensure_ascii=False)
            assert "{{" not in text, "every placeholder is filled"
            for part in q["parts"]:
                if part["kind"] in ("numeric", "array"):
                    expected = _numbers(grading.expected(part, params), [])
                    shown_params = _numbers(params, [])
                    for value in expected:
                        # a number equal to a shown parameter (e.g. k = 0 or a given input) is not a leak
                        if any(abs(value - p) < 1e-12 for p in shown_params) or abs(value) < 1e-9:
                            continue
                        assert not _shown(value, text), f"{part['id']}: expected value {value} leaked"
                if part["kind"] in ("symbolic",):
                    # a derivation's start and goal are statements shown on purpose; elsewhere the
                    # symbolic answer must not appear
                    shown = {k: v for k, v in view.items() if k != "parts"}
                    shown["parts"] = [{k: v for k, v in p.items() if k not in ("start", "goal")}
                                      for p in view["parts"]]
                    assert str(part["expected"]) not in json.dumps(shown, ensure_ascii=False)
                for mistake in part.get("mistakes", []):
                    assert mistake["feedback"]["en"] not in text
                    assert mistake["note"] not in json.dumps(view.get("parts"), ensure_ascii=False) \
                        or mistake["note"] in json.dumps([p["id"] for p in q["parts"]])


def test_public_view_shape_for_choice_and_symbolic():
    q = _load(ROOT / "L1" / "q04-k3-estimator.yaml")
    view = public_view(q, 5, "zh")
    parts = {p["id"]: p for p in view["parts"]}
    assert parts["formula"]["variables"] == ["Delta"]
    assert parts["properties"]["multiple"] is True
    assert sorted(o["id"] for o in parts["properties"]["options"]) == ["a", "b", "c", "d", "e"]
    assert all("text" in o and "correct" not in o for o in parts["properties"]["options"])
    # hints are shown one at a time on request: the view gives their number, never their text
    assert "hint" not in parts["formula"] and parts["formula"]["hints_total"] >= 1
    assert view["title"] == q["title"]["zh"]


@pytest.mark.parametrize("path", L1, ids=lambda p: p.stem)
def test_solution_view(path: Path):
    q = _load(path)
    for lang in ("en", "zh"):
        sol = solution_view(q, 3, lang)
        assert set(sol) == {"key_points", "pitfalls", "worked", "expected"}
        assert sol["key_points"] and sol["pitfalls"] and sol["worked"]
        assert "{{" not in json.dumps(sol, ensure_ascii=False)
        assert set(sol["expected"]) == {p["id"] for p in q["parts"]}
        json.dumps(sol["expected"])  # JSON-able


# --- choice options: display order shuffled per variant --------------------------------------------

def _choice_question(shuffle=None) -> dict:
    part = {"id": "pick", "kind": "choice", "prompt": {"en": "Pick", "zh": "选"},
            "options": [{"id": i, "text": {"en": f"text {i}", "zh": f"文本 {i}"}} for i in "abcdef"],
            "correct": ["a", "c"], "multiple": True}
    if shuffle is not None:
        part["shuffle"] = shuffle
    return {"id": "shuffle-demo", "level": "L1", "tags": ["t"], "title": {"en": "T", "zh": "题"},
            "prompt": {"en": "P", "zh": "问"}, "parts": [part],
            "solution": {"key_points": {"en": ["k"], "zh": ["要"]}, "pitfalls": {"en": ["p"], "zh": ["坑"]},
                         "worked": {"en": "w", "zh": "解"}}}


def _shown_options(q, seed, lang="en"):
    return public_view(q, seed, lang)["parts"][0]["options"]


def test_choice_order_same_seed_same_order():
    q = _choice_question()
    for seed in (0, 1, 42, VARIANT_MAX - 1):
        first = [o["id"] for o in _shown_options(q, seed)]
        assert first == [o["id"] for o in _shown_options(q, seed)]
        # both languages show the same order
        assert first == [o["id"] for o in _shown_options(q, seed, "zh")]
        assert first == option_order(q["id"], q["parts"][0], seed)


def test_choice_order_differs_across_seeds():
    q = _choice_question()
    orders = {tuple(o["id"] for o in _shown_options(q, seed)) for seed in range(30)}
    assert len(orders) >= 10
    assert tuple("abcdef") != next(iter(orders)) or len(orders) > 1


def test_choice_shuffle_keeps_ids_and_texts():
    q = _choice_question()
    for seed in range(20):
        for lang, prefix in (("en", "text "), ("zh", "文本 ")):
            shown = _shown_options(q, seed, lang)
            assert sorted(o["id"] for o in shown) == list("abcdef")
            assert all(o["text"] == prefix + o["id"] for o in shown)


def test_choice_shuffle_false_keeps_file_order():
    q = _choice_question(shuffle=False)
    for seed in range(20):
        assert [o["id"] for o in _shown_options(q, seed)] == list("abcdef")
    # an explicit `shuffle: true` is the default behaviour
    on, default = _choice_question(shuffle=True), _choice_question()
    assert [_shown_options(on, s) for s in range(5)] == [_shown_options(default, s) for s in range(5)]


def test_choice_shuffle_does_not_change_grading():
    from checkers.bank import validate_question

    q = _choice_question()
    validate_question(q)
    part = q["parts"][0]
    assert grading.grade(["c", "a"], part, {}).status == "correct"
    assert grading.grade(["a"], part, {}).status == "incorrect"


def test_bank_files_with_shuffle_false_keep_their_order():
    for path in FILES:
        q = _load(path)
        for i, part in enumerate(q["parts"]):
            if part["kind"] == "choice" and part.get("shuffle") is False:
                shown = [o["id"] for o in public_view(q, 123, "en")["parts"][i]["options"]]
                assert shown == [str(o["id"]) for o in part["options"]]
