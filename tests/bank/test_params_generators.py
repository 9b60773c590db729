"""Parameter generators in checkers.params: determinism, bounds, assembly from earlier parameters."""

import pytest

from checkers.params import format_value, generate, resolve_value, substitute_text
from checkers.verdict import SpecError


def test_same_seed_same_values_and_other_seeds_differ():
    spec = {"p": {"uniform": [0.1, 0.9], "round": 3}, "n": {"randint": [1, 1000]}}
    assert generate(spec, 5) == generate(spec, 5)
    assert len({tuple(generate(spec, s).values()) for s in range(20)}) > 15


def test_adding_a_parameter_does_not_move_the_others():
    base = {"p": {"uniform": [0.0, 1.0]}}
    more = {"z": {"randint": [0, 9]}, **base}
    assert generate(base, 11)["p"] == generate(more, 11)["p"]


def test_simplex_is_a_distribution_with_a_floor():
    for seed in range(50):
        p = generate({"d": {"simplex": 4, "round": 2, "min": 0.1}}, seed)["d"]
        assert len(p) == 4 and abs(sum(p) - 1) < 1e-9 and min(p) >= 0.1 - 1e-9


def test_value_and_concat_assemble_earlier_parameters():
    spec = {
        "a": {"uniform": [0, 1], "round": 2},
        "g1": {"list": {"randint": [0, 1]}, "length": 3},
        "M": {"value": [["{{a}}", 1.0], [0.5, "{{a}}"]]},
        "s": {"concat": ["{{g1}}", [7, 8], "{{a}}"]},
    }
    v = generate(spec, 3)
    assert v["M"] == [[v["a"], 1.0], [0.5, v["a"]]]
    assert v["s"] == v["g1"] + [7, 8, v["a"]]


def test_expr_and_call_parameters():
    v = generate({"p": {"value": 0.25}, "q": {"expr": "1 - p"},
                  "k": {"call": "kl.k1", "args": {"log_prob": "{{p}}", "ref_log_prob": 0.0}, "output": "kl"}}, 0)
    assert v["q"] == 0.75
    assert v["k"] == 0.25


def test_resolve_value_scales_and_indexes_engine_outputs():
    import math
    bits = resolve_value({"call": "kl.exact", "args": {"p": [0.5, 0.5], "q": [0.25, 0.75]}, "output": "kl",
                          "scale": {"expr": "1/ln(2)"}}, {})
    # KL = ½ln(0.5/0.25) + ½ln(0.5/0.75) = ½ln(4/3), in bits divided by ln 2
    assert bits == pytest.approx(0.5 * math.log(4 / 3) / math.log(2), rel=1e-12)
    second = resolve_value({"call": "kl.k1", "args": {"log_prob": [-1.0, -2.0], "ref_log_prob": [-1.5, -1.0]},
                            "output": "kl", "index": [1]}, {})
    assert second == -1.0


def test_bad_generators_are_spec_errors():
    with pytest.raises(SpecError):
        generate({"p": {"uniform": [2, 1]}}, 0)
    with pytest.raises(SpecError):
        generate({"p": {"uniform": [0, 1], "randint": [0, 1]}}, 0)
    with pytest.raises(SpecError):
        resolve_value({"call": "no.such", "args": {}}, {})
    with pytest.raises(SpecError):
        substitute_text("{{missing}}", {})


def test_display_format():
    assert format_value(0.5) == "0.5" and format_value(2.0) == "2" and format_value([0.25, 1]) == "[0.25, 1]"
    assert substitute_text("{{x:.3f}}", {"x": 1 / 3}) == "0.333"
