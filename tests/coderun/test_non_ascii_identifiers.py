"""Learner code with non-ASCII identifiers (``δ``, ``λ``: how papers write them) runs in the sealed child as its
ASCII twin does. The compiler normalises such names through ``unicodedata``, which the child could not load
once sealed: it used to die at once and be reported as a CPU or memory limit."""

import pytest

from checkers.coderun.runner import run


def _case(lp, ref):
    def t(data):
        return {"tensor": {"dtype": "float64", "shape": [len(data)], "data": data, "requires_grad": False}}
    return [{"id": "a", "kwargs": {"log_prob": t(lp), "ref_log_prob": t(ref)}, "outputs": ["kl"]}]


SOURCES = {
    "ascii": "def k1(log_prob, ref_log_prob):\n    d = ref_log_prob - log_prob\n    lam = 1.0\n    return -d * lam\n",
    "greek": "def k1(log_prob, ref_log_prob):\n    δ = ref_log_prob - log_prob\n    λ = 1.0\n    return -δ * λ\n",
    "nfkc": "def k1(log_prob, ref_log_prob):\n    ﬁ = ref_log_prob - log_prob\n    return -fi\n",  # ﬁ is NFKC 'fi'
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_identifiers_of_any_script_run(name):
    outcome = run(SOURCES[name], "k1", _case([0.1, 0.25], [0.3, 0.05]))
    assert not outcome.died and outcome.fatal is None, outcome
    data = outcome.cases["a"]["outputs"]["kl"]["data"]
    assert data == pytest.approx([0.1 - 0.3, 0.25 - 0.05])
