"""A function written without brackets takes the next item as its argument; when that item is a sign, the
sign and its operand are the argument (checkers/mathparse/spoken.py): ``\\log -x`` reads "log of negative x",
负 x 的 log -- not "log of minus x" and "减 的 log x", which made the minus a subtraction with nothing to
subtract from and left x outside the log. A function name followed by an operator that needs a left operand
(a binary minus by the TeX rule of checkers/mathparse/signs.py, a times, an equals) is a variable: the
learner's ``sigma - x`` reads "sigma minus x", not "sigmoid of minus x"."""

import latex2mathml.converter
import pytest

from checkers.mathparse.spoken import speak_mathml
from checkers.mathparse.typed import typed_forms


def _latex(latex: str) -> dict:
    return speak_mathml(latex2mathml.converter.convert(latex))


def _typed(text: str) -> dict:
    names = {n: {} for n in ("x", "a", "sigma")}
    return speak_mathml(typed_forms(text, names, allow_relation=True)[2])


@pytest.mark.parametrize("latex, en, zh", [
    (r"\log -x", "log of negative x", "负 x 的 log"),
    (r"\log \, -x", "log of negative x", "负 x 的 log"),            # a space between is looked past
    (r"\max -a", "max of negative a", "负 a 的 max"),               # \max is set as an <mo>
    (r"\exp -x^2", "exp of negative x squared", "负 x 的平方 的 exp"),
    (r"\log -\frac{1}{2}", "log of negative 1 over 2", "负 2 分之 1 的 log"),
])
def test_a_bracketless_function_takes_the_signed_operand(latex, en, zh):
    assert _latex(latex) == {"en": en, "zh": zh}


@pytest.mark.parametrize("latex, en, zh", [
    # what follows the signed operand stays outside the function, a binary minus read "minus", 减
    (r"1 - \log -x + 1", "1 minus log of negative x plus 1", "1 减 负 x 的 log 加 1"),
    # a bracket after the sign belongs to the operand and is spoken (only the function's own is silent)
    (r"\log -(x+1) - 2", "log of negative open bracket x plus 1 close bracket minus 2",
     "负 左括号 x 加 1 右括号 的 log 减 2"),
    # a signed function inside a signed argument: each takes its own operand
    (r"\exp -\log -x", "exp of negative log of negative x", "负 负 x 的 log 的 exp"),
    (r"\exp -\log(x) + 1", "exp of negative log of x plus 1", "负 x 的 log 的 exp 加 1"),
])
def test_the_signed_argument_ends_after_its_operand(latex, en, zh):
    assert _latex(latex) == {"en": en, "zh": zh}


@pytest.mark.parametrize("latex, en, zh", [
    (r"\log(-x)", "log of negative x", "负 x 的 log"),               # bracketed: as before
    (r"\log x - 1", "log of x minus 1", "x 的 log 减 1"),
    (r"\sigma(x)", "sigmoid of x", "x 的 sigmoid 函数"),
])
def test_functions_without_a_sign_read_as_before(latex, en, zh):
    assert _latex(latex) == {"en": en, "zh": zh}


@pytest.mark.parametrize("typed, en, zh", [
    ("sigma - x", "sigma minus x", "西格玛 减 x"),
    ("sigma*x", "sigma times x", "西格玛 乘 x"),
    ("x - sigma", "x minus sigma", "x 减 西格玛"),
])
def test_a_function_name_before_a_binary_operator_is_a_variable(typed, en, zh):
    """The learner's variable sigma is not the sigmoid applied to "minus x" or "times x"."""
    assert _typed(typed) == {"en": en, "zh": zh}


@pytest.mark.parametrize("latex, en, zh", [
    # TeX spaces this minus as binary (σ is an ordinary symbol, not a function name), and so it is drawn
    (r"\sigma - x", "sigma minus x", "西格玛 减 x"),
    # the bank's standard deviations: were "sigmoid of plus epsilon", "sigmoid of equals ..."
    (r"(r_i - \bar r)/(\sigma + \varepsilon)",
     "open bracket r sub i minus r bar close bracket divided by open bracket sigma plus epsilon close bracket",
     "左括号 r 下标 i 减 r 横线 右括号 除以 左括号 西格玛 加 艾普西隆 右括号"),
    (r"\sigma = f/\sqrt3", "sigma equals f divided by the square root of 3", "西格玛 等于 f 除以 3 的平方根"),
    (r"= E\cdot P", "equals E times P", "等于 E 乘 P"),
])
def test_an_authored_name_before_a_binary_operator_is_a_variable(latex, en, zh):
    assert _latex(latex) == {"en": en, "zh": zh}


def test_a_long_chain_of_signed_functions_is_read_without_error():
    # deeper than the spoken depth limit: the inner part falls back to reading the next item alone
    spoken = _latex(r"\log -" * 200 + "x")
    assert spoken["en"].startswith("log of negative log of negative") and spoken["en"].endswith("x")
    assert spoken["zh"].startswith("负 负")
