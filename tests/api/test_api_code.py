"""Code answers over the API: ``POST /api/v1/check/code`` (an implementation of an engine function against
the hidden cases), ``POST /api/v1/questions/<id>/check`` (a part's practice check: the visible cases) and
a code part in the attempt endpoint (the answer is the source text)."""

from pathlib import Path

import pytest

from checkers.bank import load_question_file
from checkers.coderun import MAX_SOURCE_BYTES
import quiz_testing as testing

K3_FILE = Path(__file__).resolve().parents[2] / "questions" / "L1" / "code-k3-per-token.yaml"
GOOD = ("import torch\n\n\ndef k3(log_prob, ref_log_prob):\n"
        "    log_ratio = ref_log_prob - log_prob\n"
        "    return torch.exp(log_ratio) - log_ratio - 1\n")
# Every value negated: r - log r - 1 written as log r + 1 - r.
SIGN_FLIPPED = ("import torch\n\n\ndef k3(log_prob, ref_log_prob):\n"
                "    log_ratio = ref_log_prob - log_prob\n"
                "    return log_ratio + 1 - torch.exp(log_ratio)\n")


def _k3_question() -> dict:
    loaded = load_question_file(K3_FILE)
    return loaded if isinstance(loaded, dict) else loaded[0]


@pytest.fixture
def k3_client(tmp_path):
    app = testing.make_app(tmp_path)
    testing.load_sample(app, _k3_question())
    yield app.test_client()
    from quizapp.storage.db import get_db
    get_db(app).dispose()


def _error(resp, status, field):
    assert resp.status_code == status, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert err["field"] == field, err
    return err


def test_correct_k3_is_correct_on_every_hidden_case(client):
    resp = client.post("/api/v1/check/code", json={"function": "kl.k3", "source": GOOD})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["status"] == "correct" and body["score"] == 1.0
    # the learner's function receives the required tensor parameters; the first output is graded
    assert body["name"] == "k3" and body["args"] == ["log_prob", "ref_log_prob"] and body["outputs"] == ["kl"]
    cases = body["details"]["cases"]
    assert len(cases) >= 5 and all(case["ok"] for case in cases)
    assert {"batch-of-one", "float32", "extreme-log-ratio"} <= {case["id"] for case in cases}
    assert isinstance(body["feedback"], str) and str(len(cases)) in body["feedback"]


def test_sign_flipped_k3_is_incorrect_and_names_the_case(client):
    body = client.post("/api/v1/check/code", json={"function": "kl.k3", "source": SIGN_FLIPPED,
                                                   "lang": "zh"}).get_json()
    assert body["status"] == "incorrect" and body["score"] == 0.0
    assert body["note"] == "wrong-sign"
    first = body["details"]["first_failure"]
    assert first["id"] == body["details"]["cases"][-1]["id"] == "random-1"
    assert first["label"] == "随机输入" and "随机输入" in body["feedback"]   # localised, names the case
    diff = first["outputs"]["kl"]
    # k3 >= 0 everywhere, so the flipped value at the first mismatch is its exact negation
    assert diff["got_value"] == pytest.approx(-diff["expected_value"]) and diff["expected_value"] > 0
    assert "inputs" in first and set(first["inputs"]) == {"log_prob", "ref_log_prob"}


def test_syntax_error_is_an_error_verdict_with_its_line(client):
    body = client.post("/api/v1/check/code", json={"function": "kl.k3",
                                                   "source": "def k3(log_prob, ref_log_prob:\n    return 0\n"}
                       ).get_json()
    assert body["status"] == "error" and body["note"] == "syntax_error"
    assert body["details"]["line"] == 1 and "line 1" in body["feedback"]


def test_convention_and_outputs_choose_what_is_graded(client):
    # verl's GAE bootstraps across mask holes; graded under TRL's convention it fails on the first case
    # whose mask has a hole (the random masks have some) and is recognised as the other convention
    # (inputs detached: the engine's advantages are, as upstream computes them under no_grad)
    verl_gae = ("import torch\n\n\ndef gae(rewards, values, mask):\n"
                "    rewards, values = rewards.detach(), values.detach()\n"
                "    B, T = rewards.shape\n    adv = torch.zeros_like(rewards)\n"
                "    nxt_v = torch.zeros(B, dtype=rewards.dtype)\n    nxt_a = torch.zeros(B, dtype=rewards.dtype)\n"
                "    for t in reversed(range(T)):\n        m = mask[:, t]\n"
                "        delta = rewards[:, t] + nxt_v - values[:, t]\n        a = delta + nxt_a\n"
                "        nxt_v = torch.where(m > 0, values[:, t], nxt_v)\n"
                "        nxt_a = torch.where(m > 0, a, nxt_a)\n        adv[:, t] = nxt_a\n"
                "    return {'advantages': adv, 'returns': adv + values}\n")
    verl = client.post("/api/v1/check/code", json={"function": "advantages.gae", "source": verl_gae,
                                                   "convention": "verl", "outputs": ["advantages", "returns"]})
    assert verl.status_code == 200 and verl.get_json()["status"] == "correct", verl.get_json()
    trl = client.post("/api/v1/check/code", json={"function": "advantages.gae", "source": verl_gae,
                                                  "convention": "trl", "outputs": ["advantages"]}).get_json()
    assert trl["status"] == "incorrect" and trl["note"] == "convention-verl", trl["feedback"]
    assert trl["details"]["first_failure"]["id"] == "random-1" and list(trl["details"]["first_failure"]
                                                                        ["outputs"]) == ["advantages"]


def test_request_errors_name_the_field(client):
    url = "/api/v1/check/code"
    assert _error(client.post(url, json={"function": "kl.k9", "source": GOOD}), 422, "function")["code"] \
        == "unknown_function"
    _error(client.post(url, json={"function": "advantages.gae", "source": GOOD, "convention": "nope"}), 422,
           "convention")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "convention": "verl"}), 422, "convention")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "outputs": ["loss"]}), 422, "outputs[0]")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "outputs": []}), 422, "outputs")
    _error(client.post(url, json={"function": "kl.k3"}), 422, "source")
    _error(client.post(url, json={"function": "kl.k3", "source": 3}), 422, "source")
    _error(client.post(url, json={"function": "kl.k3", "source": "x\x00"}), 422, "source")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "extra": 1}), 422, "extra")
    # hyperparameters are checked like the engine's own arguments, the error naming the one at fault
    _error(client.post(url, json={"function": "dpo.loss", "source": GOOD, "args": {"beta": "x"}}), 422, "args.beta")
    _error(client.post(url, json={"function": "dpo.loss", "source": GOOD, "args": {"loss_type": "nope"}}), 422,
           "args.loss_type")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "args": {"nope": 1}}), 422, "args.nope")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "args": {"log_prob": [1.0]}}), 422,
           "args.log_prob")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "args": []}), 422, "args")
    _error(client.post(url, json={"function": "kl.k3", "source": GOOD, "name": "not an identifier"}), 422, "name")


def test_source_over_the_limit_is_413(client):
    big = GOOD + "#" * (MAX_SOURCE_BYTES - len(GOOD.encode()) + 1)
    err = _error(client.post("/api/v1/check/code", json={"function": "kl.k3", "source": big}), 413, "source")
    assert err["code"] == "payload_too_large"
    at_limit = GOOD + "#" * (MAX_SOURCE_BYTES - len(GOOD.encode()))
    assert client.post("/api/v1/check/code", json={"function": "kl.k3", "source": at_limit}
                       ).get_json()["status"] == "correct"


def test_part_check_runs_the_visible_cases_only(k3_client):
    url = "/api/v1/questions/code-k3-per-token/check"
    good = k3_client.post(url, json={"part": "implement", "answer": GOOD})
    assert good.status_code == 200, good.get_json()
    body = good.get_json()
    assert body["status"] == "correct" and body["part"] == "implement"
    assert [case["id"] for case in body["details"]["cases"]] == ["visible-1", "visible-2"]
    bad = k3_client.post(url, json={"part": "implement", "answer": SIGN_FLIPPED, "variant": 3}).get_json()
    assert bad["status"] == "incorrect" and bad["note"] == "wrong-sign"
    first = bad["details"]["first_failure"]
    assert first["id"] == "visible-1" and first["inputs"]["log_prob"] and "expected_value" in first["outputs"]["kl"]
    # a check is stored nowhere: no attempt exists afterwards
    assert k3_client.get("/api/v1/attempts/1").status_code == 404
    empty = k3_client.post(url, json={"part": "implement", "answer": "  "}).get_json()
    assert empty["status"] == "invalid"


def test_part_check_errors(k3_client, client):
    url = "/api/v1/questions/code-k3-per-token/check"
    _error(k3_client.post(url, json={"part": "nope", "answer": GOOD}), 422, "part")
    _error(k3_client.post(url, json={"part": "implement"}), 422, "answer")
    _error(k3_client.post(url, json={"part": "implement", "answer": ["x"]}), 422, "answer")
    _error(k3_client.post(url, json={"part": "implement", "answer": GOOD, "variant": -1}), 422, "variant")
    big = "#" * (MAX_SOURCE_BYTES + 1)
    _error(k3_client.post(url, json={"part": "implement", "answer": big}), 413, "answer")
    assert k3_client.post("/api/v1/questions/nope/check", json={"part": "a", "answer": "x"}).status_code == 404
    # a kind without a practice check (the sample question's numeric part)
    sample = testing.SAMPLE_QUESTION
    err = _error(client.post(f"/api/v1/questions/{sample['id']}/check",
                             json={"part": sample["parts"][0]["id"], "answer": "1"}), 422, "part")
    assert err["code"] == "no_check"


def test_code_part_in_an_attempt_grades_the_hidden_cases(k3_client):
    url = "/api/v1/questions/code-k3-per-token/attempts"
    resp = k3_client.post(url, json={"variant": 0, "answers": {"implement": SIGN_FLIPPED}})
    assert resp.status_code == 201, resp.get_json()
    part = resp.get_json()["parts"]["implement"]
    assert part["status"] == "incorrect" and part["note"] == "wrong-sign"
    assert part["details"]["first_failure"]["id"] == "random-1"
    ok = k3_client.post(url, json={"variant": 0, "answers": {"implement": GOOD}}).get_json()
    assert ok["parts"]["implement"]["status"] == "correct" and ok["score"] == ok["max_score"]


def test_openapi_documents_the_endpoints_with_an_example_that_grades_correct(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    op = doc["paths"]["/api/v1/check/code"]["post"]
    example = op["requestBody"]["content"]["application/json"]["examples"]["k3"]["value"]
    assert client.post("/api/v1/check/code", json=example).get_json()["status"] == "correct"
    assert "/api/v1/questions/{qid}/check" in doc["paths"]
    assert "error" in doc["components"]["schemas"]["Verdict"]["properties"]["status"]["enum"]
