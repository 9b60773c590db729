"""Fix-the-bug code exercises: the part's own ``starter: {source, fix_the_bug: true, note}``.

The learner starts from a plausible implementation with one real-world bug. What must hold:
the page shows that buggy source (not the generated signature) and says "Fix the bug in" instead of
"Define"; the spec is refused when the block is malformed; the buggy starter itself is among the
checker's incorrect examples, so the bank self-test proves it fails with the bug's note; and, for every
``code-fix-*`` exercise of the bank, the starter grades ``incorrect`` with its note while the reference
solution grades ``correct`` (hidden cases, sealed child).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from markupsafe import escape

import quiz_testing as testing
from checkers.bank import load_bank_files
from checkers.bank.variants import public_view
from checkers.kinds.code.checker import CodeChecker
from checkers.verdict import SpecError

QUESTIONS = Path(__file__).resolve().parents[4] / "questions"
CHECKER = CodeChecker()


def _fix_questions() -> list[tuple[str, dict, dict]]:
    out = []
    for _, question in load_bank_files(QUESTIONS):
        for part in question["parts"]:
            if part["kind"] == "code" and (part.get("starter") or {}).get("fix_the_bug"):
                out.append((question["id"], question, part))
    return out


FIX = _fix_questions()
FIX_IDS = [qid for qid, _, _ in FIX]

# A small spec for the validation tests (the engine's masked mean; its starter returns the plain mean).
BUGGY_MEAN = "import torch\ndef masked_mean(values, mask):\n    return values.mean()\n"
SPEC = {
    "function": "masked.mean", "name": "masked_mean", "args": ["values", "mask"],
    "fixed": {"axis": None, "convention": "verl"}, "outputs": ["mean"],
    "summary": {"en": "masked mean", "zh": "掩码均值"},
    "solution": "import torch\ndef masked_mean(values, mask):\n    return (values * mask).sum() / (mask.sum() + 1e-8)\n",
    "mistakes": [{"overrides": {"mask": "@ones_like:mask"}, "note": "plain-mean",
                  "feedback": {"en": "You averaged the padding too.", "zh": "你把填充也平均进去了。"}}],
    "starter": {"fix_the_bug": True, "note": "plain-mean", "source": BUGGY_MEAN},
}


def _grade(source: str, part: dict):
    return CHECKER.grade(CHECKER.parse(source, part), part, {})


def test_the_bank_holds_at_least_eight_fix_the_bug_exercises():
    assert len(FIX) >= 8, FIX_IDS
    for qid, question, part in FIX:
        assert qid.startswith("code-fix-"), qid
        assert question["level"] in {"L1", "L2", "L3"}
        # the buggy starter is not the solution, and it defines the function the part asks for
        assert part["starter"]["source"].strip() != part["solution"].strip(), qid
        name = part.get("name") or part["function"].rsplit(".", 1)[-1]
        assert f"def {name}(" in part["starter"]["source"], qid


@pytest.mark.parametrize("qid, question, part", FIX, ids=FIX_IDS)
def test_the_starter_fails_with_its_note_and_the_solution_passes(qid, question, part):
    buggy = _grade(part["starter"]["source"], part)
    assert buggy.status == "incorrect", (qid, buggy.note, buggy.feedback)
    assert buggy.note == part["starter"]["note"], (qid, buggy.feedback)
    assert buggy.feedback["en"] and buggy.feedback["zh"]
    good = _grade(part["solution"], part)
    assert good.status == "correct", (qid, good.note, good.feedback)


@pytest.mark.parametrize("qid, question, part", FIX, ids=FIX_IDS)
def test_the_page_data_is_the_buggy_source_flagged_fix_the_bug(qid, question, part):
    for lang in ("en", "zh"):
        shown = next(p for p in public_view(question, 3, lang)["parts"] if p["id"] == part["id"])
        assert shown["starter"] == part["starter"]["source"]
        assert shown["fix_the_bug"] is True


def test_an_exercise_without_a_starter_keeps_the_generated_one():
    question = next(q for _, q in load_bank_files(QUESTIONS) if q["id"] == "code-masked-mean")
    shown = public_view(question, 0, "en")["parts"][0]
    assert shown["fix_the_bug"] is False
    assert shown["starter"].startswith("import torch\n\n\ndef masked_mean(values, mask):\n")
    assert "mean = ...\n    return mean" in shown["starter"]


def test_the_buggy_starter_is_an_incorrect_example_with_its_note():
    CHECKER.validate_spec(SPEC)
    examples = CHECKER.examples(SPEC, {})
    assert (BUGGY_MEAN, "plain-mean") in examples.incorrect
    plain = dict(SPEC, starter={"source": BUGGY_MEAN})   # a given starter that is not a bug: not graded
    CHECKER.validate_spec(plain)
    assert all(src != BUGGY_MEAN for src, _ in CHECKER.examples(plain, {}).incorrect)
    assert CHECKER.public(plain, {}, "en", None)["starter"] == BUGGY_MEAN
    assert CHECKER.public(plain, {}, "en", None)["fix_the_bug"] is False


def test_grading_the_buggy_starter_gives_the_mistake_feedback():
    verdict = _grade(BUGGY_MEAN, SPEC)
    assert verdict.status == "incorrect" and verdict.note == "plain-mean"
    assert "You averaged the padding too." in verdict.feedback["en"]
    assert "你把填充也平均进去了。" in verdict.feedback["zh"]
    assert _grade(SPEC["solution"], SPEC).status == "correct"


@pytest.mark.parametrize("starter, field", [
    ("import torch", "starter:"),                                              # not a mapping
    ({"fix_the_bug": True, "source": BUGGY_MEAN}, "starter.note"),            # a bug without its note
    ({"fix_the_bug": True, "note": "plain-mean"}, "starter.source"),          # no source
    ({"fix_the_bug": True, "note": "plain-mean", "source": "  \n"}, "starter.source"),
    ({"fix_the_bug": "yes", "note": "plain-mean", "source": BUGGY_MEAN}, "starter.fix_the_bug"),
    ({"source": BUGGY_MEAN, "note": "plain-mean"}, "starter.note"),            # a note on a plain starter
    ({"fix_the_bug": True, "note": "plain-mean", "source": BUGGY_MEAN, "hint": "x"}, "starter: unknown keys"),
])
def test_a_malformed_starter_is_refused(starter, field):
    spec = copy.deepcopy(SPEC)
    spec["starter"] = starter
    with pytest.raises(SpecError) as err:
        CHECKER.validate_spec(spec)
    assert str(err.value).startswith(field), str(err.value)


def test_the_page_says_fix_the_bug_in_both_languages(tmp_path):
    qid, question, part = FIX[0]
    app = testing.make_app(tmp_path)
    testing.load_sample(app, copy.deepcopy(question))
    client = app.test_client()
    en = client.get(f"/questions/{qid}?variant=1&lang=en").get_data(as_text=True)
    zh = client.get(f"/questions/{qid}?variant=1&lang=zh").get_data(as_text=True)
    assert "Fix the bug in" in en and ">Define<" not in en and "Define <code>" not in en
    assert "修复以下函数中的错误" in zh
    # the editor's textarea holds the buggy source, escaped as the template escapes it
    assert str(escape(part["starter"]["source"])) in en
    other = next(q for _, q in load_bank_files(QUESTIONS) if q["id"] == "code-masked-mean")
    testing.load_sample(app, copy.deepcopy(other))
    html = client.get("/questions/code-masked-mean?variant=1&lang=en").get_data(as_text=True)
    assert "Define <code>masked_mean(values, mask)</code>" in html and "Fix the bug in" not in html
