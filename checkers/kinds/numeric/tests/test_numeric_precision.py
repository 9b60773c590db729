"""The numeric precision rule (checkers.kinds.precision): one table, the stated requirement, the preview.

Rule: inside the band -> correct whatever the digits; outside it, a plain decimal with fewer digits than
required that *is* the expected value rounded to those digits -> ``insufficient_precision``; else incorrect.
"""

from __future__ import annotations

import pytest

from checkers import grading
from checkers.bank import load_bank, load_question_file, params_for, public_view
from checkers.kinds.numeric import precision
from checkers.kinds._common import read_number

REL = {"rtol": 1e-3, "atol": 1e-8}  # the default band: 0.1 % relative -> 4 significant figures asked


def _num(expected, **extra):
    return {"kind": "numeric", "expected": expected, **extra}


# (expected, extra spec, answer, status, note). The expected values are chosen so that the band edges are
# easy to derive by hand: 0.04994 at rtol 1e-3 accepts |a - b| <= 4.995e-5, i.e. [0.049890, 0.049990].
RULE = [
    # the case of the task: 0.0499 lies in the band, 0.05 is the value rounded to 1 figure, outside it
    (0.04994, {"tolerance": REL}, "0.0499", "correct", None),
    (0.04994, {"tolerance": REL}, "0.05", "incorrect", "insufficient_precision"),
    (0.04994, {"tolerance": REL}, "0.050", "incorrect", "insufficient_precision"),
    (0.04994, {"tolerance": REL}, "0.04994", "correct", None),
    (0.04994, {"tolerance": REL}, "0.049940000", "correct", None),
    # 3 figures but not the rounding of 0.04994 (that is 0.0499): plainly wrong, not "more digits"
    (0.04994, {"tolerance": REL}, "0.0500", "incorrect", None),
    (0.04994, {"tolerance": REL}, "0.04985", "incorrect", None),
    # the same rule for a value 0.00002 higher: 0.05 is now inside the band, so it is correct
    (0.04996, {"tolerance": REL}, "0.05", "correct", None),
    (0.04996, {"tolerance": REL}, "0.0499", "incorrect", None),
    # scientific notation counts its mantissa's digits
    (0.04994, {"tolerance": REL}, "4.994e-2", "correct", None),
    (0.04994, {"tolerance": REL}, "5e-2", "incorrect", "insufficient_precision"),
    (0.04994, {"tolerance": REL}, "5.0E-2", "incorrect", "insufficient_precision"),
    (0.04994, {"tolerance": REL}, "4.99E-2", "correct", None),
    # negative values: the same band and digits, mirrored
    (-0.04994, {"tolerance": REL}, "-0.0499", "correct", None),
    (-0.04994, {"tolerance": REL}, "-0.05", "incorrect", "insufficient_precision"),
    (-0.04994, {"tolerance": REL}, "0.04994", "incorrect", "wrong-sign"),
    # zero expected: the band is atol alone; a typed zero is never "too coarse"
    (0.0, {"tolerance": REL}, "0", "correct", None),
    (0.0, {"tolerance": REL}, "0.000", "correct", None),
    (0.0, {"tolerance": REL}, "-0.0", "correct", None),
    (0.0, {"tolerance": REL}, "5e-9", "correct", None),
    (0.0, {"tolerance": REL}, "0.001", "incorrect", None),
    (0.3, {"tolerance": REL}, "0", "incorrect", None),
    (0.3, {"tolerance": REL}, "0.0", "incorrect", None),
    # maths is exact as written: judged by the band alone
    (0.04994, {"tolerance": REL}, "1/20", "incorrect", None),
    # sigfigs: the band is half a unit in the n-th figure of b; the requirement is n figures
    (1.2298, {"sigfigs": 3}, "1.23", "correct", None),
    (1.2298, {"sigfigs": 3}, "1.229", "correct", None),
    (1.2298, {"sigfigs": 3}, "1.2", "incorrect", "insufficient_precision"),
    (1.2298, {"sigfigs": 3}, "1.24", "incorrect", None),
    # an absolute band (rtol 0): the requirement is decimal places (atol 1e-3 -> 3 places)
    (2.71828, {"tolerance": {"rtol": 0, "atol": 1e-3}}, "2.718", "correct", None),
    (2.71828, {"tolerance": {"rtol": 0, "atol": 1e-3}}, "2.72", "incorrect", "insufficient_precision"),
    (2.71828, {"tolerance": {"rtol": 0, "atol": 1e-3}}, "2.73", "incorrect", None),
    # no band at all: only the exact value, never "more digits"
    (0.25, {"tolerance": {"rtol": 0, "atol": 0}}, "0.25", "correct", None),
    (0.25, {"tolerance": {"rtol": 0, "atol": 0}}, "0.3", "incorrect", None),
]


@pytest.mark.parametrize("expected,extra,answer,status,note", RULE)
def test_rule(expected, extra, answer, status, note):
    v = grading.grade(answer, _num(expected, **extra), {})
    assert (v.status, v.note) == (status, note), v.feedback["en"]
    if note == "insufficient_precision":
        req = precision.requirement(_num(expected, **extra))
        assert str(req.digits) in v.feedback["en"] and str(req.digits) in v.feedback["zh"]


@pytest.mark.parametrize("extra,mode,digits", [
    ({"tolerance": {"rtol": 1e-3}}, "sigfigs", 4),    # 0.5e-3 <= 1e-3 < 0.5e-2
    ({"tolerance": {"rtol": 2e-3}}, "sigfigs", 4),
    ({"tolerance": {"rtol": 5e-3}}, "sigfigs", 3),    # 0.5e-2 <= 5e-3 exactly
    ({"tolerance": {"rtol": 1e-4}}, "sigfigs", 5),
    ({"tolerance": {"rtol": 1e-6}}, "sigfigs", 7),
    ({"tolerance": {"rtol": 0.5}}, "sigfigs", 1),
    ({"sigfigs": 3}, "sigfigs", 3),
    ({"tolerance": {"rtol": 0, "atol": 1e-3}}, "decimals", 3),
    ({"tolerance": {"rtol": 0, "atol": 0.5}}, "decimals", 0),
    ({"tolerance": {"rtol": 0, "atol": 0}}, "exact", 0),
])
def test_requirement_from_the_tolerance(extra, mode, digits):
    req = precision.requirement(_num(1.0, **extra))
    assert (req.mode, req.digits) == (mode, digits)


@pytest.mark.parametrize("rtol", [1e-3, 2e-3, 1e-4, 1e-5])
@pytest.mark.parametrize("mantissa", [1.0, 1.04999, 2.5, 4.994, 4.996, 5.0, 9.49, 9.96, 9.9999])
@pytest.mark.parametrize("exponent", [-9, -2, 0, 3])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_stated_requirement_is_a_promise(rtol, mantissa, exponent, sign):
    """b rounded to the stated n figures is always correct; rounded to fewer it is correct or "more digits"."""
    b = sign * mantissa * 10.0 ** exponent
    spec = _num(b, tolerance={"rtol": rtol, "atol": 0})
    n = precision.requirement(spec).digits
    assert grading.grade(f"{b:.{n - 1}e}", spec, {}).status == "correct"
    for k in range(1, n):
        v = grading.grade(f"{b:.{k - 1}e}", spec, {})
        assert v.status == "correct" or v.note == "insufficient_precision", (k, v.note)


def _sample_answers(b: float) -> list[str]:
    out = []
    for k in range(1, 8):
        out += [f"{b:.{k - 1}e}", f"{b * (1 + 3e-4):.{k - 1}e}", f"{b * (1 - 2e-3):.{k - 1}e}"]
    return out + [repr(b), "0", f"{-b:.3g}", "ln(2)"]


@pytest.mark.parametrize("spec", [
    _num(0.04994, tolerance=REL), _num(-0.04994, tolerance=REL), _num(0.04996, tolerance=REL),
    _num(1.2298, sigfigs=3), _num(2.71828, tolerance={"rtol": 0, "atol": 1e-3}), _num(123456.7, tolerance=REL),
])
def test_grader_and_preview_agree(spec):
    """Every "give more digits" verdict was warned by the preview; an unwarned answer never gets one."""
    b = spec["expected"]
    for answer in _sample_answers(b):
        preview = grading.validate(answer, spec)
        verdict = grading.grade(answer, spec, {})
        assert preview["valid"] and verdict.status in ("correct", "incorrect"), answer
        if verdict.note == "insufficient_precision":
            assert preview["warning"] is not None, answer
        if preview["warning"] is None:
            assert verdict.note != "insufficient_precision", answer


def test_preview_warning_names_the_digits():
    spec = _num(0.04994, tolerance=REL)
    w = grading.validate("0.05", spec)["warning"]
    assert "0.05 has 1 significant figure" in w["en"] and "at least 4 significant figures" in w["en"]
    assert "1 位有效数字" in w["zh"] and "至少 4 位有效数字" in w["zh"]
    assert grading.validate("0.04994", spec)["warning"] is None
    assert grading.validate("0", spec)["warning"] is None
    assert grading.validate("ln(2)/2", spec)["warning"] is None
    bad = grading.validate("2*(", spec)
    assert bad["valid"] is False and bad["warning"] is None
    w = grading.validate("2.7", _num(2.71828, tolerance={"rtol": 0, "atol": 1e-3}))["warning"]
    assert "1 decimal place" in w["en"] and "at least 3 decimal places" in w["en"]


def test_read_number_counts_digits():
    assert read_number("0.0500").sigfigs == 3 and read_number("-4.994e-2").sigfigs == 4
    assert read_number("5E-2").half_unit == pytest.approx(0.005)


def test_statement_text():
    s = precision.statement(_num(1.0, tolerance={"rtol": 1e-4, "atol": 1e-6}))
    assert s["en"].startswith("Give at least 5 significant figures") and "0.01 %" in s["en"] and "1e-6" in s["en"]
    assert "5 位有效数字" in s["zh"] and "0.01 %" in s["zh"]
    s = precision.statement(_num(1.0, sigfigs=3))
    assert "at least 3 significant figures" in s["en"] and "3 位有效数字" in s["zh"]
    s = precision.statement(_num(1.0, tolerance={"rtol": 0, "atol": 1e-3}))
    assert "at least 3 decimal places" in s["en"] and "±0.001" in s["en"] and "3 位小数" in s["zh"]


def _bank():
    return load_bank("questions")


def test_every_numeric_part_of_the_bank_states_its_precision():
    seen = 0
    for q in _bank():
        for lang, unit in (("en", "significant figure"), ("zh", "有效数字")):
            view = public_view(q, 0, lang)
            for authored, shown in zip(q["parts"], view["parts"]):
                if authored["kind"] != "numeric":
                    assert "precision" not in shown, (q["id"], authored["id"])
                    continue
                seen += 1
                req = precision.requirement(authored)
                text = shown["precision"]
                assert text == precision.statement(authored)[lang], (q["id"], authored["id"])
                if req.mode == "decimals" and req.digits == 0:   # a count: a whole number is asked for
                    assert ("whole number" if lang == "en" else "整数") in text, (q["id"], authored["id"], text)
                    continue
                assert unit in text and str(req.digits) in text, (q["id"], authored["id"], text)
                assert req.mode == "sigfigs" and 3 <= req.digits <= 8, (q["id"], authored["id"], req)
    assert seen >= 40  # both languages of every numeric part


def test_q16_parts_share_one_tolerance_and_subtract_consistently():
    """E[k2], KL and their difference are the same kind of quantity (nats): one tolerance, one promise.

    Answers for E[k2] and KL rounded to the stated figures are accepted, and so is their difference.
    """
    q = load_question_file("questions/L2/q16-k2-bias.yaml")
    parts = {p["id"]: p for p in q["parts"] if p["kind"] == "numeric"}
    assert set(parts) == {"ek2", "exact", "bias"}
    assert len({repr(p.get("tolerance")) for p in parts.values()}) == 1
    assert len({precision.statement(p)["en"] for p in parts.values()}) == 1
    n = precision.requirement(parts["ek2"]).digits
    for seed in range(0, 400, 13):
        params = params_for(q, seed)
        ek2 = f"{grading.expected(parts['ek2'], params):.{n - 1}e}"
        kl = f"{grading.expected(parts['exact'], params):.{n - 1}e}"
        assert grading.grade(ek2, parts["ek2"], params).status == "correct", seed
        assert grading.grade(kl, parts["exact"], params).status == "correct", seed
        bias = repr(float(ek2) - float(kl))
        assert grading.grade(bias, parts["bias"], params).status == "correct", (seed, bias)
