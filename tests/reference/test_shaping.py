import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def test_controllers():
    assert call("kl_controller.fixed", kl_coef=0.05)["kl_coef"].item() == 0.05
    out = call("kl_controller.adaptive", kl_coef=0.1, current_kl=7.0, target_kl=6.0, n_steps=100, horizon=1000)
    e = 7.0 / 6.0 - 1
    assert out["proportional_error"].item() == pytest.approx(e)
    assert out["kl_coef"].item() == pytest.approx(0.1 * (1 + e * 100 / 1000))
    low = call("kl_controller.adaptive", kl_coef=0.1, current_kl=0.0, target_kl=6.0, n_steps=1000, horizon=1000,
               min_coef=0.09)
    assert low["proportional_error"].item() == -0.2  # clipped
    assert low["kl_coef"].item() == 0.09  # 0.1·0.8 = 0.08 clamped up


def test_kl_in_reward_hand_computed_and_convention():
    scores = [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    lp = [[-1.0, -1.0, -1.0], [-2.0, -2.0, -2.0]]
    ref = [[-1.5, -1.0, -2.0], [-2.0, -2.0, -2.0]]
    m = [[1, 1, 0], [0, 0, 0]]
    out = call("reward.kl_in_reward", token_level_scores=scores, old_log_prob=lp, ref_log_prob=ref, mask=m,
               kl_coef=0.1)
    assert out["kl"].tolist() == [[0.5, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert out["token_level_rewards"][0].tolist() == pytest.approx([-0.05, 0.0, 1.0])
    # row means (0.5/(2+1e-8), 0/(0+1e-8)) averaged over 2 rows
    assert out["current_kl"].item() == pytest.approx(0.5 / (2 + 1e-8) / 2)
    trl = call("reward.kl_in_reward", token_level_scores=scores, old_log_prob=lp, ref_log_prob=ref, mask=m,
               kl_coef=0.1, convention="trl")
    assert math.isnan(trl["current_kl"].item())  # the empty row's mean is 0/0


def test_terminal_reward_positions_and_clip():
    lp = [[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]
    ref = [[-1.2, -1.2, -1.2], [-1.2, -1.2, -1.2]]
    m = [[1, 1, 0], [1, 1, 1]]
    out = call("reward.terminal", scores=[3.0, 4.0], log_prob=lp, ref_log_prob=ref, mask=m, kl_coef=0.5)["rewards"]
    pen = -0.5 * 0.2
    assert out[0].tolist() == pytest.approx([pen, pen + 3.0, 0.0])
    assert out[1].tolist() == pytest.approx([pen, pen, pen + 4.0])
    after = call("reward.terminal", scores=[3.0, 4.0], log_prob=lp, ref_log_prob=ref, mask=m, kl_coef=0.5,
                 score_position="after_last", mask_kl=False)["rewards"]
    assert after[0].tolist() == pytest.approx([pen, pen, pen + 3.0])
    assert after[1].tolist() == pytest.approx([pen, pen, pen + 4.0])  # already at the end
    clipped = call("reward.terminal", scores=[3.0, -9.0], kl=[[0.0] * 3] * 2, mask=m, kl_coef=0.5,
                   reward_clip_range=[-1, 1])["rewards"]
    assert clipped.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]
    neg = call("reward.terminal", scores=[0.0, 0.0], kl=[[1.0] * 3] * 2, mask=m, kl_coef=-0.5,
               convention="openrlhf")["rewards"]
    assert neg.abs().max().item() == 0.0
    neg_verl = call("reward.terminal", scores=[0.0, 0.0], kl=[[1.0] * 3] * 2, mask=m, kl_coef=-0.5)["rewards"]
    assert neg_verl[1, 0].item() == 0.5


def test_terminal_reward_gradient_reaches_log_prob():
    lp = torch.tensor([[-1.0, -2.0]], dtype=torch.float64, requires_grad=True)
    out = call("reward.terminal", scores=[1.0], log_prob=lp, ref_log_prob=[[-1.0, -1.0]], mask=[[1, 1]],
               kl_coef=0.25, estimator="k2")["rewards"]
    (g,) = torch.autograd.grad(out.sum(), lp)
    # d/dlp of −β·½(lp − ref)² = −β(lp − ref)
    assert g.tolist()[0] == pytest.approx([0.0, 0.25])


@pytest.mark.parametrize("name,kwargs,argument", [
    ("kl_controller.adaptive", {"kl_coef": 0.1, "current_kl": 1, "target_kl": 0, "n_steps": 1, "horizon": 1},
     "target_kl"),
    ("reward.kl_in_reward", {"token_level_scores": [[0.0]], "old_log_prob": [[0.0]], "ref_log_prob": [[0.0, 1.0]],
                             "mask": [[1]], "kl_coef": 0.1}, "ref_log_prob"),
    ("reward.kl_in_reward", {"token_level_scores": [[0.0]], "old_log_prob": [[0.0]], "ref_log_prob": [[0.0]],
                             "mask": [[1]], "kl_coef": [0.1, 0.2]}, "kl_coef"),
    ("reward.terminal", {"scores": [1.0, 2.0], "kl": [[0.0]], "mask": [[1]], "kl_coef": 0.1}, "scores"),
    ("reward.terminal", {"scores": [1.0], "kl": [[0.0, 0.0]], "mask": [[0, 0]], "kl_coef": 0.1}, "mask"),
    ("reward.terminal", {"scores": [1.0], "kl": [[0.0]], "mask": [[1]], "kl_coef": 0.1,
                         "reward_clip_range": [2, 1]}, "reward_clip_range"),
])
def test_validation_names_argument(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(name, **kwargs)
    assert err.value.argument == argument
