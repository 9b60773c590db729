"""The stand-alone verification endpoints: /check/symbolic and /check/derivation."""


def _error(resp, status, field="__any__"):
    assert resp.status_code == status, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    if field != "__any__":
        assert err["field"] == field, err
    return err


def test_symbolic_correct_and_incorrect(client):
    resp = client.post("/api/v1/check/symbolic", json={"expected": "exp(x) - x - 1", "answer": "exp(x) - x - 1",
                                                       "variables": {"x": {"real": True}}})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["status"] == "correct" and isinstance(body["feedback"], str)
    assert {"status", "interpreted_as", "feedback"} <= set(body)
    wrong = client.post("/api/v1/check/symbolic", json={"expected": "exp(x) - x - 1", "answer": "x**2",
                                                        "variables": {"x": {"real": True}}, "mode": "equivalent"})
    assert wrong.get_json()["status"] == "incorrect"


def test_symbolic_invalid_answer_is_a_verdict(client):
    body = client.post("/api/v1/check/symbolic", json={"expected": "x", "answer": "(x",
                                                       "variables": {"x": {}}}).get_json()
    assert body["status"] == "invalid"


def test_symbolic_errors(client):
    url = "/api/v1/check/symbolic"
    _error(client.post(url, json={"answer": "x"}), 422, "expected")
    _error(client.post(url, json={"expected": 1, "answer": "x"}), 422, "expected")
    _error(client.post(url, json={"expected": "x", "answer": "x", "mode": "sideways"}), 422, "mode")
    _error(client.post(url, json={"expected": "x", "answer": "x", "variables": {"x": {"happy": True}}}), 422,
           "variables.x.happy")
    _error(client.post(url, json={"expected": "x", "answer": "x", "variables": {"x": {"domain": "reals"}}}), 422,
           "variables.x.domain")
    _error(client.post(url, json={"expected": "x", "answer": "x", "variables": ["x"]}), 422, "variables")
    _error(client.post(url, data="{", content_type="application/json"), 400)
    _error(client.post(url, data="{}", content_type="text/plain"), 415)


def test_derivation(client):
    resp = client.post("/api/v1/check/derivation", json={
        "start": "(x + 1)**2", "goal": "x**2 + 2*x + 1",
        "steps": ["(x + 1)*(x + 1)", "x**2 + 2*x + 1"], "variables": {"x": {"real": True}}})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["status"] == "correct" and body["first_error"] is None
    assert [s["index"] for s in body["steps"]] == [0, 1]


def test_derivation_errors(client):
    url = "/api/v1/check/derivation"
    _error(client.post(url, json={"start": "x", "goal": "x"}), 422, "steps")
    _error(client.post(url, json={"steps": [1], "start": "x", "goal": "x"}), 422, "steps[0]")
    _error(client.post(url, json={"steps": ["x"], "goal": "x"}), 422, "start")
    _error(client.post(url, json={"steps": ["x"], "start": "x", "goal": "x", "functions": {"f": {"args": []}}}),
           422, "functions.f.args")
