"""A placeholder's format spec asks for at most MAX_FORMAT_FIELD characters of width and of precision:
``{{p:>99999999999}}`` would raise MemoryError on every view and a width of 10^9 allocate gigabytes. The
schema (so the authoring tool) refuses a larger one naming the field, and filling a text refuses it before
``format`` is called, whatever reached it."""

from __future__ import annotations

import copy

import pytest

import quiz_testing as testing
from checkers import params as params_module
from checkers.bank import BankError, dump_question, validate_question
from checkers.bank.report import question_report
from checkers.limits import MAX_FORMAT_FIELD
from checkers.params import check_format_spec, format_value, substitute_text
from checkers.verdict import SpecError
from quizapp.authoring import validation
from quizapp.errors import ValidationError

WIDE = "99999999999"  # 10^11 - 1: the padded string alone would need about 100 GB


def _question(mutate) -> dict:
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = "format-spec-limit"
    mutate(data)
    return data


def _hint(text: str):
    def mutate(d):
        d["parts"][0]["hints"][0]["en"] = text
    return mutate


def _refused(data: dict) -> BankError:
    with pytest.raises(BankError) as info:
        validate_question(data)
    return info.value


# --------------------------------------------------------------------------- the schema names the field


@pytest.mark.parametrize(("spec", "what"), [
    (f">{WIDE}", f"width of {WIDE}"),
    (f"0>{MAX_FORMAT_FIELD + 1}", f"width of {MAX_FORMAT_FIELD + 1}"),   # fill "0", align ">"
    (f"0{MAX_FORMAT_FIELD + 1}", f"width of {MAX_FORMAT_FIELD + 1}"),    # the zero flag, then the width
    (f"+{MAX_FORMAT_FIELD + 1},.2f", f"width of {MAX_FORMAT_FIELD + 1}"),
    (f".{MAX_FORMAT_FIELD + 1}f", f"precision of {MAX_FORMAT_FIELD + 1}"),
    (f"^1.{WIDE[:8]}e", f"precision of {WIDE[:8]}"),
])
def test_the_schema_refuses_a_wide_field_naming_the_text(spec, what):
    err = _refused(_question(_hint(f"Pad {{{{p:{spec}}}}} here.")))
    assert err.field == "parts[0].hints[0].en"
    assert what in err.problem and str(MAX_FORMAT_FIELD) in err.problem


@pytest.mark.parametrize(("key", "field"), [
    (("solution", "worked", "zh"), "solution.worked.zh"),
    (("prompt", "en"), "prompt.en"),
    (("parts", 0, "mistakes", 0, "feedback", "zh"), "parts[0].mistakes[0].feedback.zh"),
])
def test_every_text_is_checked(key, field):
    def mutate(d):
        node = d
        for k in key[:-1]:
            node = node[k]
        node[key[-1]] = f"p = {{{{p:.{MAX_FORMAT_FIELD + 1}f}}}}"
    assert _refused(_question(mutate)).field == field


def test_a_parameter_assembled_from_text_is_checked_too():
    err = _refused(_question(lambda d: d["params"].update(label={"value": f"{{{{p:<{WIDE}}}}}"})))
    assert err.field.startswith("params.label") and f"width of {WIDE}" in err.problem


def test_the_limit_itself_is_allowed_and_renders():
    spec = f">{MAX_FORMAT_FIELD}.{MAX_FORMAT_FIELD}f"
    data = _question(_hint(f"Pad {{{{p:{spec}}}}} here."))
    validate_question(data)  # raises on refusal
    assert len(format_value(0.5, spec)) == MAX_FORMAT_FIELD + 2  # "0." and MAX_FORMAT_FIELD decimals
    assert question_report(data, 2)["ok"]


def test_a_spec_too_long_to_be_a_placeholder_is_malformed():
    # the placeholder pattern reads at most 12 characters of spec: a longer one would be shown as typed
    err = _refused(_question(_hint("Both {{p}} and {{p:>9999999999999}}.")))
    assert err.field == "parts[0].hints[0].en" and "malformed placeholder" in err.problem


def test_the_authoring_tool_refuses_it_at_its_line():
    data = _question(_hint(f"Pad {{{{p:>{WIDE}}}}} here."))
    text = dump_question(data)
    with pytest.raises(ValidationError) as info:
        validation.validate(data, text=text)
    assert info.value.field == "parts[0].hints[0].en"
    first = info.value.extra["failures"][0]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if WIDE in row)
    assert (first["field"], first["line"]) == ("parts[0].hints[0].en", line)
    assert f"width of {WIDE}" in first["reason"]


# --------------------------------------------------------------------------- filling refuses, never allocates


@pytest.fixture
def format_calls(monkeypatch):
    """Every call of ``format`` made by checkers.params (the builtin, through a module global)."""
    calls: list[tuple] = []

    def spy(value, spec=""):
        calls.append((value, spec))
        return format(value, spec)
    monkeypatch.setattr(params_module, "format", spy, raising=False)
    return calls


@pytest.mark.parametrize("value", [0.5, 7, [0.25, 3]])
@pytest.mark.parametrize("spec", [f">{WIDE}", f".{WIDE[:10]}f", f"0{MAX_FORMAT_FIELD + 1}", f"x^{10 ** 9}"])
def test_filling_refuses_a_wide_field_before_format_runs(value, spec, format_calls):
    with pytest.raises(SpecError, match="at most"):
        substitute_text(f"[{{{{v:{spec}}}}}]", {"v": value})
    with pytest.raises(SpecError):
        format_value(value, spec)
    assert format_calls == []  # nothing was formatted, so nothing of that size was built


def test_filling_within_the_limit_goes_through_format(format_calls):
    assert substitute_text("{{v:.3f}} {{n:>4}}", {"v": 0.5, "n": 7}) == "0.500    7"
    assert format_calls == [(0.5, ".3f"), (7, ">4")]


@pytest.mark.parametrize(("value", "spec"), [(0.5, ".2q"), (3, ".2"), (2.5, "c"), (10 ** 20, "c")])
def test_a_spec_that_does_not_apply_is_the_authors_spec_error(value, spec):
    with pytest.raises(SpecError, match=repr(spec)):
        format_value(value, spec)


def test_check_format_spec_reads_each_part_of_the_mini_language():
    for ok in ("", ".4f", ">8.2f", "*^+#012,.3e", "z.2f", "_d", "%", f"{MAX_FORMAT_FIELD}"):
        check_format_spec(ok)
    for bad in (".2q", "8.2ff", "..2f", f"{MAX_FORMAT_FIELD + 1}", "1" * 200):
        with pytest.raises(SpecError):
            check_format_spec(bad)
