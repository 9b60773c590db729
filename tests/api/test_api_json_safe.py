"""What the API hands to the JSON encoder (quizapp.httpkit.jsonio.json_safe): plain values pass as they
are, containers are copied, and everything else becomes something JSON can carry, nested at any depth."""

import enum
import json
import math
from dataclasses import dataclass

import numpy as np
import torch

from quizapp.httpkit.jsonio import json_safe


class Level(enum.IntEnum):
    L1 = 1


@dataclass
class Point:
    x: float
    tags: tuple


def test_plain_values_pass_and_containers_are_copies():
    doc = {"a": [1, 2.5, "s", True, None], "b": {"c": False}}
    out = json_safe(doc)
    assert out == doc and out is not doc and out["a"] is not doc["a"] and out["b"] is not doc["b"]
    assert type(out["a"][3]) is bool and json_safe(Level.L1) == 1


def test_everything_else_becomes_json():
    doc = {1: (float("nan"), float("inf"), -math.inf), "p": Point(0.5, ("k", 2, Point(float("nan"), ()))), "s": {3},
           "np": [np.float64(0.25), np.int32(7), np.array([[1.0, float("nan")]])], "t": torch.tensor([1.5, 2.0]),
           "other": complex(1, 2), "deep": [{"x": (np.float32(float("-inf")),)}]}
    out = json_safe(doc)
    assert out == {"1": ["nan", "inf", "-inf"], "p": {"x": 0.5, "tags": ["k", 2, {"x": "nan", "tags": []}]}, "s": [3],
                   "np": [0.25, 7, [[1.0, "nan"]]], "t": [1.5, 2.0], "other": "(1+2j)", "deep": [{"x": ["-inf"]}]}
    assert json.loads(json.dumps(out, allow_nan=False)) == out  # strict JSON: no NaN literal anywhere
