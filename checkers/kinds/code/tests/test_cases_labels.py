"""A ``labels`` parameter (``index``, the group id of each row) is a tensor input of a code exercise.

The group-relative advantages take ``index`` with the registry kind ``labels``; the spec check, the case
builder and the starter treat it as an int64 tensor, and the grouped edge cases are built for it.
"""

from __future__ import annotations

import pytest
import torch

from checkers.kinds.code.cases import CaseBuilder, is_tensor_param
from checkers.kinds.code.roles import GROUP_SIZE
from checkers.kinds.code.spec import validate_code_spec
from checkers.kinds.code.starter import starter_source
from checkers.reference import describe
from checkers.verdict import SpecError

SPEC = {"function": "advantages.grpo", "args": ["scores", "index", "epsilon"], "scalars": {"epsilon": 1e-6},
        "fixed": {"convention": "verl"}, "outputs": ["advantages"], "solution": "def grpo(): pass",
        "summary": {"en": "GRPO advantages.", "zh": "GRPO 优势。"}}


def test_labels_kind_is_a_tensor_input_and_scalars_are_not():
    params = {p["name"]: p for p in describe("advantages.grpo")["params"]}
    assert params["index"]["kind"] == "labels"
    assert is_tensor_param(params["index"]) and is_tensor_param(params["scores"])
    assert not is_tensor_param(params["epsilon"]) and not is_tensor_param(params["convention"])


def test_a_grouped_spec_validates_and_index_cannot_be_a_gradient_input():
    validate_code_spec(SPEC)
    with pytest.raises(SpecError, match="gradients"):
        validate_code_spec({**SPEC, "gradients": ["index"]})
    with pytest.raises(SpecError, match="epsilon"):
        validate_code_spec({**SPEC, "args": ["scores", "index", "epsilon"], "scalars": {}})


def test_grouped_cases_carry_int64_group_ids_and_the_group_edge_cases():
    builder = CaseBuilder(SPEC)
    assert builder.grouped and builder.tensor_args == ["scores", "index"]
    cases = builder.hidden()
    ids = [c.id for c in cases]
    assert "group-of-one" in ids and "identical-rewards" in ids
    for case in cases:
        index = case.tensors["index"]
        assert index.dtype == torch.int64 and index.shape == case.tensors["scores"].shape
        assert builder.typed(case)["index"].dtype == torch.int64     # a float32 case keeps integer labels
    lone = next(c for c in cases if c.id == "group-of-one").tensors["index"]
    assert torch.bincount(lone).min().item() == 1
    same = next(c for c in cases if c.id == "identical-rewards").tensors["scores"]
    assert torch.all(same[:GROUP_SIZE] == same[0])
    # the engine accepts the generated labels: one advantage per row
    outs, _ = builder.reference(cases[0], ["advantages"])
    assert outs["advantages"].shape == cases[0].tensors["scores"].shape


def test_the_starter_shows_index_as_a_tensor():
    src = starter_source(SPEC)
    assert "def grpo(scores, index, epsilon):" in src
    assert "index: torch.Tensor (B,)" in src
    assert "epsilon: float (this exercise: 1e-06)" in src
