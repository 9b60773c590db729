"""/api/v1/check/symbolic: complex variables, given constants and the decimals tolerance."""

URL = "/api/v1/check/symbolic"
RL = {"r": {"real": True}, "beta": {"positive": True}, "lt": {"real": True}, "lr": {"real": True}}


def _status(client, **body):
    resp = client.post(URL, json=body)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def _error_field(client, **body):
    resp = client.post(URL, json=body)
    assert resp.status_code == 422, resp.get_data(as_text=True)
    return resp.get_json()["error"]["field"]


def test_complex_assumption_is_accepted_and_changes_the_verdict(client):
    assert _status(client, expected="z", answer="log(exp(z))", variables={"z": {"complex": True}})["status"] == "incorrect"
    assert _status(client, expected="z", answer="log(exp(z))", variables={"z": {}})["status"] == "correct"


def test_constants_let_the_offset_depend_on_beta(client):
    body = dict(expected="r - beta*(lt - lr)", answer="r - beta*(lt - lr + 1)", variables=RL, mode="up_to_constant")
    assert _status(client, **body)["status"] == "incorrect"
    assert _status(client, **body, constants=["beta"])["status"] == "correct"
    assert _error_field(client, **body, constants=["gamma"]) == "constants[0]"
    assert _error_field(client, **body, constants=[3]) == "constants[0]"
    assert _error_field(client, **body, constants="beta") == "constants"


def test_decimals_need_the_exact_value_unless_a_tolerance_is_given(client):
    body = _status(client, expected="1/3", answer="0.333333333333333")
    assert body["status"] == "incorrect" and body["note"] == "inexact-decimal"
    assert "exact value" in body["feedback"]
    zh = _status(client, expected="1/3", answer="0.333333333333333", lang="zh")
    assert "精确值" in zh["feedback"]
    assert _status(client, expected="1/3", answer="0.3333", decimals={"rtol": 1e-3})["status"] == "correct"
    assert _status(client, expected="1/2", answer="0.5")["status"] == "correct"
    assert _error_field(client, expected="1/3", answer="0.3", decimals={"rtol": -1}) == "decimals.rtol"
    assert _error_field(client, expected="1/3", answer="0.3", decimals={"tol": 1}) == "decimals.tol"
    assert _error_field(client, expected="1/3", answer="0.3", decimals={}) == "decimals"
