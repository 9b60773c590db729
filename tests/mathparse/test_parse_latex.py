"""LaTeX input: the same maths typed in LaTeX gives the same sympy object as plain text."""

import pytest
import sympy as sp

from checkers.mathparse import parse_math
from checkers.verdict import AnswerParseError

V = {
    "beta": {"positive": True}, "Delta": {}, "r": {"positive": True}, "x": {}, "y": {}, "x1": {},
    "pi_theta": {"domain": "probability"}, "pi_ref": {"domain": "probability"}, "r_w": {},
    "pi_ref_old": {"positive": True},
}


@pytest.mark.parametrize("latex, plain", [
    (r"\frac{x}{y}", "x/y"),
    (r"\dfrac{1}{1+e^{-x}}", "1/(1+exp(-x))"),
    (r"\tfrac12 x", "x/2"), (r"\frac12", "1/2"), (r"\frac{1}{2}", "0.5"), (r"\frac xy", "x/y"),
    (r"\log x", "log(x)"), (r"\ln x", "ln(x)"), (r"\ln(x)", "log(x)"), (r"\exp(x)", "exp(x)"),
    (r"\exp\left(-\Delta\right)", "exp(-Delta)"), (r"e^{-\Delta} + \Delta - 1", "exp(-Delta) + Delta - 1"),
    (r"\sqrt{x}", "sqrt(x)"), (r"\sqrt x", "sqrt(x)"), (r"\sqrt[3]{x}", "x^(1/3)"), (r"\sqrt{x^2+1}", "sqrt(x^2+1)"),
    (r"\sigma(x)", "sigmoid(x)"), (r"\sigma\left(\beta \Delta\right)", "sigmoid(beta*Delta)"),
    (r"\beta", "beta"), (r"\Delta", "Delta"), (r"\beta\Delta", "beta Delta"), (r"2\beta", "2 beta"),
    (r"\pi_\theta", "pi_theta"), (r"\pi_{\theta}", "pi_theta"), (r"\pi_{\text{ref}}", "pi_ref"),
    (r"\pi_{\mathrm{ref}}", "pi_ref"), (r"\pi_{ref}", "pi_ref"), (r"\pi_{\rm ref}".replace(r"\rm ref", r"\rm{ref}"), "pi_ref"),
    (r"\pi_{ref old}", "pi_ref_old"), (r"\pi_{\text{ref}_{old}}", "pi_ref_old"), (r"x_{1}", "x1"), (r"x_1", "x1"),
    (r"r_{w}", "r_w"), (r"\log \frac{\pi_\theta}{\pi_{\text{ref}}}", "log(pi_theta/pi_ref)"),
    (r"\log\left(\frac{\pi_\theta}{\pi_{\mathrm{ref}}}\right)", "log(pi_theta/pi_ref)"),
    (r"\left( x + 1 \right)^{2}", "(x+1)^2"), (r"x \cdot y", "x*y"), (r"x \times y", "x*y"), (r"x \div y", "x/y"),
    (r"x^{2}", "x^2"), (r"x^2", "x^2"), (r"\Delta^2 x", "Delta^2*x"), (r"\Delta^2x", "Delta^2*x"), (r"x^23", "x^23"), (r"x^{23}", "x^23"), (r"e^{x}", "exp(x)"),
    (r"e^x", "exp(x)"), (r"e^-x", "exp(-x)"), (r"e^{\beta x}", "exp(beta*x)"), (r"2^\frac12", "sqrt(2)"),
    (r"\min(x, y)", "min(x,y)"), (r"\max\left(x, y\right)", "max(x,y)"), (r"\min\left(x, y\right)", "min(x, y)"),
    (r"\operatorname{softplus}(x)", "softplus(x)"), (r"\operatorname{clip}(x, 0, 1)", "clip(x,0,1)"),
    (r"\mathrm{logsigmoid}(x)", "logsigmoid(x)"), (r"\log_2 x", "log(x, 2)"), (r"\log_{2}(x)", "log(x, 2)"),
    (r"\log_{10}{x}", "log10(x)"), (r"\left|x\right|", "abs(x)"), (r"\lvert x - y \rvert", "|x - y|"),
    (r"\tanh{\left(x \right)}", "tanh(x)"), (r"\log{\left(x \right)}", "log(x)"), (r"\pi", "pi"),
    (r"2\pi x", "2*pi*x"), (r"\mathrm{e}^{x}", "exp(x)"), (r"x\,y", "x*y"), (r"x\;y\!", "x y"), (r"x\ y", "x y"),
    (r"\displaystyle\frac{x}{y}", "x/y"), (r"$\frac{x}{y}$", "x/y"), (r"\frac{\beta}{2}\Delta^{2}", "beta/2 Delta^2"),
    (r"\beta \log \sigma(\beta \Delta)", "beta * log(sigmoid(beta*Delta))"),
    (r"-\log \sigma\left(\beta \log\frac{\pi_\theta}{\pi_{\text{ref}}}\right)",
     "-log(sigmoid(beta log(pi_theta/pi_ref)))"),
    (r"\log^2 x", "log(x)^2"), (r"\ln^{2}(x y)", "log(x y)^2"), (r"\exp^2 x", "exp(x)^2"),
    (r"\bigl( x \bigr)", "x"), (r"\Big[x + y\Big]", "x + y"),
])
def test_latex_equals_plain(latex, plain):
    a = parse_math(latex, V).expr
    b = parse_math(plain, V).expr
    assert a == b or sp.simplify(a - b) == 0, (latex, a, b)


def test_latex_relations():
    pm = parse_math(r"x \le y", V, allow_relation=True)
    assert pm.relation and pm.expr == sp.Le(pm.lhs, pm.rhs)
    pm = parse_math(r"\frac{x}{2} = y", V, allow_relation=True)
    assert pm.lhs == parse_math("x/2", V).expr
    with pytest.raises(AnswerParseError):
        parse_math(r"x \geq y", V)


@pytest.mark.parametrize("text", [
    r"\input{/etc/passwd}", r"\include{x}", r"\def\x{1}", r"\newcommand{\x}{1}", r"\renewcommand",
    r"\write18{rm -rf /}", r"\catcode`\^=7", r"\immediate", r"\openout", r"\usepackage{x}", r"\begin{array}",
    r"\frac{x}", r"\frac", r"\sqrt", r"\text{}", r"\operatorname{foo}(x)", r"\sinc x", r"\infty", r"x \\ y",
    r"\{x\}", r"\Delta^23", r"\frac{x}{y", r"\left( x", r"\mathrm{ref", r"\pi_{}", r"\pi_{x+1}", r"\hat{x}", r"\cdot",
])
def test_latex_errors(text):
    with pytest.raises(AnswerParseError):
        parse_math(text, V)


def test_unknown_command_column():
    with pytest.raises(AnswerParseError) as ei:
        parse_math(r"x + \input{a}", V)
    assert ei.value.column == 4 and r"\input" in ei.value.message
