"""reward.overlong_penalty (engine v3, verl's DAPO reward manager): slow loop, hand values, gradient, errors."""

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(**kw):
    return reference.call("reward.overlong_penalty", **kw, **CPU)


def slow(length, max_len, buf, factor):
    """The DAPO paper's ramp (§3.4, eq. 13) between L_max − L_cache and L_max, without its −1 floor."""
    start = max_len - buf
    if length <= start:
        return 0.0
    return -factor * (length - start) / buf


@pytest.mark.parametrize("max_len,buf,factor", [(4096, 512, 1.0), (20, 20, 0.5), (100, 7, 2.0)])
def test_matches_slow_loop(max_len, buf, factor):
    lengths = list(range(0, max_len + buf, max(1, max_len // 37)))
    out = call(response_length=lengths, max_resp_len=max_len, overlong_buffer_len=buf,
               overlong_penalty_factor=factor)
    for length, got, flag in zip(lengths, out["overlong_reward"].tolist(), out["overlong"].tolist()):
        expected = slow(length, max_len, buf, factor)
        assert got == pytest.approx(expected, rel=1e-14, abs=0), length
        assert flag == (1.0 if expected < 0 else 0.0)


def test_hand_values_and_no_floor_past_the_limit():
    out = call(response_length=[3584, 3840, 4096, 4608], max_resp_len=4096, overlong_buffer_len=512)
    assert out["overlong_reward"].tolist() == [0.0, -0.5, -1.0, -2.0]   # verl keeps ramping past the limit
    assert out["overlong"].tolist() == [0.0, 1.0, 1.0, 1.0]
    zero_factor = call(response_length=[5000], max_resp_len=4096, overlong_buffer_len=512, overlong_penalty_factor=0.0)
    assert zero_factor["overlong_reward"].item() == 0.0 and zero_factor["overlong"].item() == 0.0


def test_gradient_and_shape():
    length = torch.tensor([[10.0, 95.5], [99.0, 50.0]], dtype=torch.float64, requires_grad=True)
    out = call(response_length=length, max_resp_len=100, overlong_buffer_len=10, overlong_penalty_factor=2.0)
    assert out["overlong_reward"].shape == (2, 2)
    assert torch.autograd.gradcheck(
        lambda x: call(response_length=x, max_resp_len=100, overlong_buffer_len=10,
                       overlong_penalty_factor=2.0)["overlong_reward"], (length,))
    (grad,) = torch.autograd.grad(out["overlong_reward"].sum(), length)
    assert grad.tolist() == [[0.0, -0.2], [-0.2, 0.0]]


def test_float32():
    out = call(response_length=[95, 97], max_resp_len=100, overlong_buffer_len=10, dtype="float32")
    assert out["overlong_reward"].dtype == torch.float32 and out["overlong"].dtype == torch.float32
    assert out["overlong_reward"].tolist() == pytest.approx([-0.5, -0.7], rel=1e-6)


@pytest.mark.parametrize("kw,argument", [
    ({"overlong_buffer_len": 0}, "overlong_buffer_len"),
    ({"overlong_buffer_len": -5}, "overlong_buffer_len"),
    ({"max_resp_len": 5, "overlong_buffer_len": 10}, "max_resp_len"),
    ({"response_length": [-1]}, "response_length"),
    ({"response_length": ["nan"]}, "response_length"),
    ({"overlong_penalty_factor": -1.0}, "overlong_penalty_factor"),
    ({"overlong_buffer_len": 2.5}, "overlong_buffer_len"),
    ({"max_resp_len": 10 ** 30}, "max_resp_len"),
    ({"response_length": None}, "response_length"),
])
def test_input_errors(kw, argument):
    args = {"response_length": [10], "max_resp_len": 100, "overlong_buffer_len": 10, **kw}
    with pytest.raises(ReferenceInputError) as err:
        call(**args)
    assert err.value.argument == argument


def test_http_call_and_verify(client):
    args = {"response_length": [80, 95], "max_resp_len": 100, "overlong_buffer_len": 10}
    resp = client.post("/api/v1/reference/reward.overlong_penalty", json=args)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["outputs"] == {"overlong_reward": [0.0, -0.5], "overlong": [0.0, 1.0]}
    v = client.post("/api/v1/verify/reward.overlong_penalty",
                    json={"args": args, "claimed": {"overlong_reward": [0.0, -0.4]}}).get_json()
    assert v["match"] is False and v["outputs"]["overlong_reward"]["first_mismatch"] == [1]
    bad = client.post("/api/v1/reference/reward.overlong_penalty", json={**args, "overlong_buffer_len": 0})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "overlong_buffer_len"
