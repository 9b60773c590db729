import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def test_gold_reward_hand_computed():
    # kl = 4 -> d = 2: bon 2(1 − 0.25·2) = 1; rl 2(1 − 0.25·ln 2)
    assert call("overopt.gold_reward", kl=4.0, alpha=1.0, beta=0.25, method="bon")["reward"].item() == 1.0
    rl = call("overopt.gold_reward", d=[0.0, 2.0], alpha=1.0, beta=0.25, method="rl")["reward"].tolist()
    assert rl == pytest.approx([0.0, 2 * (1 - 0.25 * math.log(2))])


@pytest.mark.parametrize("method", ["bon", "rl"])
def test_peak_is_the_maximum_of_the_curve(method):
    peak = call("overopt.peak", alpha=1.2, beta=0.4, method=method)
    d = torch.linspace(0.01, 3 * peak["d"].item(), 5001, dtype=torch.float64)
    curve = call("overopt.gold_reward", d=d, alpha=1.2, beta=0.4, method=method)["reward"]
    assert peak["reward"].item() == pytest.approx(curve.max().item(), rel=1e-6)
    assert peak["kl"].item() == pytest.approx(peak["d"].item() ** 2)
    if method == "bon":
        assert peak["d"].item() == pytest.approx(1.2 / 0.8)


def test_bon_kl():
    out = call("bon.kl", n=[1, 2, 16])["kl"].tolist()
    assert out == pytest.approx([0.0, math.log(2) - 0.5, math.log(16) - 15 / 16])


@pytest.mark.parametrize("name,kwargs,argument", [
    ("bon.kl", {"n": [0.5]}, "n"),
    ("overopt.peak", {"alpha": 1.0, "beta": 0.0, "method": "rl"}, "beta"),
    ("overopt.gold_reward", {"kl": -1.0, "alpha": 1.0, "beta": 0.1, "method": "bon"}, "kl"),
    ("overopt.gold_reward", {"alpha": 1.0, "beta": 0.1, "method": "bon"}, "kl"),
    ("overopt.gold_reward", {"kl": 1.0, "alpha": 1.0, "beta": 0.1, "method": "ppo"}, "method"),
])
def test_validation_names_argument(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(name, **kwargs)
    assert err.value.argument == argument
