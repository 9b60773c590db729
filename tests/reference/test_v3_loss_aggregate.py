"""loss.aggregate with the global-batch arguments, as the contract's §6.1 details them (verl agg_loss)."""

import math

import pytest

from checkers import reference

CPU = {"device": "cpu"}
L = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
M = [[1, 1, 0], [1, 0, 0], [0, 0, 0]]


def agg(mode, mask=M, **kw):
    return reference.call("loss.aggregate", loss_mat=L, mask=mask, mode=mode, **kw, **CPU)["loss"].item()


def test_each_mode_reads_only_its_arguments():
    g = dict(dp_size=4, batch_num_tokens=10.0, global_batch_size=8.0, loss_scale_factor=6.0)
    assert agg("token-mean", **g) == pytest.approx((1 + 2 + 4) / 10 * 4)
    assert agg("seq-mean-token-sum", **g) == pytest.approx((3 + 4) / 8 * 4)
    assert agg("seq-mean-token-mean", **g) == pytest.approx((3 / (2 + 1e-8) + 4 / (1 + 1e-8)) / 8 * 4, rel=1e-14)
    assert agg("seq-mean-token-sum-norm", **g) == pytest.approx(7 / 6)          # no dp_size
    # without them: Σ m tokens, the rows with a counted token, T
    assert agg("token-mean") == pytest.approx(7 / 3)
    assert agg("seq-mean-token-sum") == pytest.approx(7 / 2)
    assert agg("seq-mean-token-sum-norm") == pytest.approx(7 / 3)


@pytest.mark.parametrize("mode,kw", [("token-mean", {"batch_num_tokens": 5.0}),
                                     ("seq-mean-token-sum", {"global_batch_size": 4.0}),
                                     ("seq-mean-token-mean", {"global_batch_size": 4.0, "dp_size": 2})])
def test_an_all_masked_local_batch(mode, kw):
    empty = [[0, 0, 0]] * 3
    assert agg(mode, mask=empty, **kw) == 0.0                # with the global count: contributes 0
    assert math.isnan(agg(mode, mask=empty))                 # without it: 0/0, no 1e-8
