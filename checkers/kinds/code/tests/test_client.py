"""The notebook client (``quizapp/client.py``): a function object is checked against the engine through a
live service, with what it uses from its module sent along; a refusal names the field."""

from __future__ import annotations

import math

import pytest
import torch.nn.functional as F

import quiz_testing as testing
from quizapp import client

SCALE = 0.5                      # a module constant a checked function uses


def _half_square(x):             # a helper a checked function calls
    return SCALE * x ** 2


def k2(log_prob, ref_log_prob):
    return _half_square(log_prob - ref_log_prob)


def bt(reward_chosen, reward_rejected):
    return F.sigmoid(reward_chosen - reward_rejected) * math.exp(0.0)


def wrong_k2(log_prob, ref_log_prob):
    return _half_square(ref_log_prob) - _half_square(log_prob)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    app = testing.make_app(tmp_path_factory.mktemp("client"))
    with testing.serve_in_thread(app, threads=2, name="client-live-server") as url:
        yield url
    from quizapp.storage.db import get_db
    get_db(app).dispose()


def test_source_carries_imports_helpers_and_constants():
    src = client.source_of(k2)
    assert "def _half_square(x):" in src and "def k2(log_prob, ref_log_prob):" in src
    assert "SCALE = 0.5" in src
    alias = client.source_of(bt)
    assert "import torch.nn.functional as F" in alias and "import math" in alias
    with pytest.raises(TypeError):
        client.source_of(len)


def test_check_grades_a_function_object_and_reports_the_difference(live, capsys):
    good = client.check(k2, "kl.k2", url=live)
    assert good["status"] == "correct" and good["name"] == "k2"
    assert capsys.readouterr().out.startswith("kl.k2: correct")
    # the aliased module (F) and math travel as import lines: the sealed child runs the function alone
    aliased = client.check(bt, "preference.bradley_terry", url=live, show=False)
    assert aliased["status"] == "correct" and aliased["name"] == "bt"
    bad = client.check(wrong_k2, "kl.k2", url=live, lang="zh")
    assert bad["status"] == "incorrect" and bad["name"] == "wrong_k2"
    text = capsys.readouterr().out
    first = bad["details"]["first_failure"]
    cmp = first["outputs"]["kl"]
    index = "".join(f"[{i}]" for i in cmp["first_mismatch"])
    assert f"output kl{index}: expected {cmp['expected_value']}, got {cmp['got_value']}" in text
    assert "随机输入" in text                                      # the feedback in the asked language


def test_a_refused_request_raises_naming_the_field(live):
    with pytest.raises(client.CheckError) as info:
        client.check(k2, "dpo.loss", args={"beta": -1.0}, url=live, show=False)
    assert info.value.status == 422 and info.value.field == "args.beta"
    with pytest.raises(client.CheckError) as info:
        client.check(k2, "kl.k9", url=live, show=False)
    assert info.value.field == "function"
