import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError
from checkers.reference.masked import agg_loss_t, masked_mean_t, masked_var_t, masked_whiten_t

CPU = {"device": "cpu"}


def t(x):
    return torch.tensor(x, dtype=torch.float64)


def test_masked_mean_hand_computed_each_convention():
    values = [[1.0, 2.0, 100.0], [4.0, 5.0, 6.0]]
    mask = [[1, 1, 0], [0, 1, 1]]
    # counted: 1, 2, 5, 6 -> sum 14 over 4 tokens
    verl = reference.call("masked.mean", values=values, mask=mask, **CPU)["mean"].item()
    trl = reference.call("masked.mean", values=values, mask=mask, convention="trl", **CPU)["mean"].item()
    assert trl == pytest.approx(14 / 4, abs=1e-15)
    assert verl == pytest.approx(14 / (4 + 1e-8), abs=1e-15)
    assert verl != trl


def test_masked_mean_axis_and_empty_row_epsilon():
    values = [[1.0, 3.0], [7.0, 9.0]]
    mask = [[1, 1], [0, 0]]
    verl = reference.call("masked.mean", values=values, mask=mask, axis=-1, **CPU)["mean"]
    trl = reference.call("masked.mean", values=values, mask=mask, axis=-1, convention="openrlhf", **CPU)["mean"]
    assert verl[0].item() == pytest.approx((1 + 3) / (2 + 1e-8), abs=1e-15)
    assert verl[1].item() == 0.0  # empty row: 0 / 1e-8
    assert trl[0].item() == 2.0
    assert math.isnan(trl[1].item())  # empty row: 0 / 0


def test_masked_sum_ignores_nan_at_masked_positions_but_trl_mean_propagates():
    values = [1.0, "nan", 3.0]
    mask = [1, 0, 1]
    assert reference.call("masked.sum", values=values, mask=mask, **CPU)["sum"].item() == 4.0
    assert reference.call("masked.mean", values=values, mask=mask, **CPU)["mean"].item() == pytest.approx(2.0)
    assert math.isnan(reference.call("masked.mean", values=values, mask=mask, convention="trl", **CPU)["mean"].item())


def test_masked_var_hand_computed_and_unbiased_errors():
    x = [2.0, 4.0, 99.0, 6.0]
    m = [1, 1, 0, 1]
    # mean 4, squared deviations 4, 0, 4 -> biased 8/3, unbiased 8/2
    trl = reference.call("masked.var", values=x, mask=m, convention="trl", **CPU)["var"].item()
    assert trl == pytest.approx(4.0, abs=1e-14)
    biased = reference.call("masked.var", values=x, mask=m, unbiased=False, convention="trl", **CPU)["var"].item()
    assert biased == pytest.approx(8 / 3, abs=1e-14)
    with pytest.raises(ReferenceInputError) as err:
        reference.call("masked.var", values=x, mask=[0, 0, 1, 0], **CPU)
    assert err.value.argument == "mask"


def test_whiten_verl_vs_openrlhf_on_row_with_hole():
    x = t([[1.0, 2.0, 50.0, 3.0], [10.0, 20.0, 30.0, 40.0]])
    m = t([[1, 1, 0, 1], [1, 1, 1, 1]])
    w_trl = masked_whiten_t(x, m, convention="trl")
    # batch-wide over the 7 counted values, unbiased
    vals = [1, 2, 3, 10, 20, 30, 40]
    mu = sum(vals) / 7
    var = sum((v - mu) ** 2 for v in vals) / 6
    assert w_trl[0, 2].item() == pytest.approx((50 - mu) / math.sqrt(var + 1e-8), rel=1e-12)  # not re-masked
    w_o = masked_whiten_t(x, m, convention="openrlhf")
    # row 0: mean 2, biased var (1 + 0 + 1)/3
    assert w_o[0, 0].item() == pytest.approx(-1 / math.sqrt(2 / 3), rel=1e-12)
    assert w_o[0, 2].item() == 0.0
    # row 1: mean 25, biased var (225+25+25+225)/4 = 125
    assert w_o[1, 3].item() == pytest.approx(15 / math.sqrt(125), rel=1e-12)
    w_keep = masked_whiten_t(x, m, shift_mean=False, convention="trl")
    assert torch.allclose(w_keep - w_trl, torch.full_like(x, mu))


def test_whiten_verl_differs_from_trl_by_epsilon_only():
    x = t([0.5, 1.5, -2.0, 4.0])
    m = t([1, 0, 1, 1])
    diff = (masked_whiten_t(x, m, convention="verl") - masked_whiten_t(x, m, convention="trl")).abs().max().item()
    assert 0 < diff < 1e-6


def test_whiten_gradient_flows():
    x = t([1.0, 2.0, 4.0]).requires_grad_(True)
    out = reference.call("masked.whiten", values=x, mask=[1, 1, 1], **CPU)["whitened"]
    (g,) = torch.autograd.grad(out[2], x)
    assert g.abs().sum().item() > 0


@pytest.mark.parametrize("mode,expected", [
    # loss rows [1, 2, (3)], [4, (5), (6)]; masks [1,1,0], [1,0,0]
    ("token-mean", (1 + 2 + 4) / 3),
    ("seq-mean-token-sum", ((1 + 2) + 4) / 2),
    ("seq-mean-token-mean", ((1 + 2) / (2 + 1e-8) + 4 / (1 + 1e-8)) / 2),
    ("seq-mean-token-sum-norm", (1 + 2 + 4) / 3),
])
def test_loss_aggregate_modes(mode, expected):
    out = reference.call("loss.aggregate", loss_mat=[[1, 2, 3], [4, 5, 6]], mask=[[1, 1, 0], [1, 0, 0]],
                         mode=mode, **CPU)["loss"].item()
    assert out == pytest.approx(expected, abs=1e-14)


def test_loss_aggregate_global_batch_arguments_and_empty_rows():
    L = t([[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]])
    M = t([[1, 1], [0, 1], [0, 0]])
    assert agg_loss_t(L, M, "token-mean", dp_size=2, batch_num_tokens=6).item() == pytest.approx((1 + 2 + 4) / 6 * 2)
    # the fully masked third row is excluded from the sequence count
    assert agg_loss_t(L, M, "seq-mean-token-sum").item() == pytest.approx((3 + 4) / 2)
    assert agg_loss_t(L, M, "seq-mean-token-sum", global_batch_size=7).item() == pytest.approx((3 + 4) / 7)
    assert agg_loss_t(L, M, "seq-mean-token-sum-norm", loss_scale_factor=5).item() == pytest.approx(7 / 5)


@pytest.mark.parametrize("name,kwargs,argument", [
    ("masked.mean", {"values": [1, 2], "mask": [1, 0, 1]}, "mask"),
    ("masked.mean", {"values": [1, 2], "mask": [1, 0.5]}, "mask"),
    ("masked.mean", {"values": [1, 2], "mask": [1, 1], "convention": "jax"}, "convention"),
    ("masked.mean", {"values": [1, 2], "mask": [1, 1], "axis": 3}, "axis"),
    ("masked.sum", {"values": [[1, 2]], "mask": [1, 1]}, "mask"),
    ("masked.whiten", {"values": [1, 2], "mask": [1, 0]}, "mask"),
    ("loss.aggregate", {"loss_mat": [[1, 2]], "mask": [[1, 1]], "mode": "sum"}, "mode"),
    ("loss.aggregate", {"loss_mat": [[1, 2]], "mask": [[1, 1]], "mode": "token-mean", "dp_size": 0}, "dp_size"),
    ("loss.aggregate", {"loss_mat": [[1, 2]], "mask": [[1, 1]]}, "mode"),
])
def test_validation_names_argument(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        reference.call(name, **kwargs, **CPU)
    assert err.value.argument == argument


def test_helpers_reject_unknown_convention():
    with pytest.raises(ReferenceInputError) as err:
        masked_mean_t(t([1.0]), t([1.0]), convention="deepspeed")
    assert err.value.argument == "convention"
    with pytest.raises(ReferenceInputError):
        masked_var_t(t([1.0]), t([1.0]))
