"""The registry as a whole: every contract name is registered, described and callable by name."""

import re
from pathlib import Path

import pytest
import torch

from checkers import reference

CONTRACT = Path(__file__).resolve().parents[2] / "shared" / "reference-contract.md"


def contract_names() -> set[str]:
    if not CONTRACT.exists():
        pytest.skip(f"contract not found at {CONTRACT}")
    return set(re.findall(r"^\| `([a-z_]+\.[a-z_0-9]+)` \|", CONTRACT.read_text(), re.M))


def test_every_contract_function_is_registered():
    names = contract_names()
    assert len(names) > 40
    assert names <= set(reference.names())


@pytest.mark.parametrize("name", reference.names())
def test_describe_gives_doc_schema_and_outputs(name):
    d = reference.describe(name)
    assert d["name"] == name
    assert len(d["doc"]) > 40, "docstring should give the formula and its source"
    assert d["outputs"]
    param_names = [p["name"] for p in d["params"]]
    assert len(param_names) == len(set(param_names))
    assert {"dtype", "device"} <= set(param_names)
    for p in d["params"]:
        assert p["kind"] in ("tensor", "float", "int", "bool", "str", "choice", "labels", "tensor_or_float", "list")


def test_unknown_function_names_itself():
    with pytest.raises(reference.UnknownFunction) as err:
        reference.call("no.such_function")
    assert "no.such_function" in str(err.value)


def test_extra_argument_is_named():
    with pytest.raises(reference.ReferenceInputError) as err:
        reference.call("kl.k1", log_prob=[0.0], ref_log_prob=[0.0], bogus=1)
    assert err.value.argument == "bogus"


def test_missing_argument_is_named():
    with pytest.raises(reference.ReferenceInputError) as err:
        reference.call("kl.k1", log_prob=[0.0])
    assert err.value.argument == "ref_log_prob"


def test_lists_become_float64_and_float32_is_honoured():
    out64 = reference.call("kl.k1", log_prob=[-1.0, -2.0], ref_log_prob=[-1.5, -1.0])["kl"]
    assert out64.dtype == torch.float64
    assert out64.tolist() == [0.5, -1.0]
    out32 = reference.call("kl.k1", log_prob=[-1.0], ref_log_prob=[-1.5], dtype="float32")["kl"]
    assert out32.dtype == torch.float32


def test_nonfinite_strings_are_decoded():
    out = reference.call("kl.k1", log_prob=["-inf", -1.0], ref_log_prob=[-1.0, "nan"])["kl"]
    assert out[0].item() == float("-inf") and torch.isnan(out[1])


def test_gradients_flow_to_the_callers_tensor():
    lp = torch.tensor([-1.0, -0.5], dtype=torch.float64, requires_grad=True)
    out = reference.call("kl.k2", log_prob=lp, ref_log_prob=[-1.5, -0.5])["kl"].sum()
    (grad,) = torch.autograd.grad(out, lp)
    # d/dlp of ½(lp − ref)² is (lp − ref): 0.5 and 0.
    assert grad.tolist() == [0.5, 0.0]


def test_unknown_device_is_an_input_error():
    with pytest.raises(reference.ReferenceInputError) as err:
        reference.call("kl.k1", log_prob=[0.0], ref_log_prob=[0.0], device="tpu:7")
    assert err.value.argument == "device"
