"""/check/derivation judges reasoning: no step of its own scores 0; optional milestones give partial credit."""

URL = "/api/v1/check/derivation"
X = {"x": {"real": True}}
START, GOAL = "(x + 1)**2", "x**2 + 2*x + 1"


def _post(client, **body):
    resp = client.post(URL, json={"start": START, "goal": GOAL, "variables": X, **body})
    return resp.status_code, resp.get_json()


def test_only_the_start_or_the_goal_scores_zero(client):
    for steps in ([START], [GOAL], [START, GOAL]):
        status, body = _post(client, steps=steps)
        assert status == 200 and body["status"] == "incorrect" and body["score"] == 0.0, body
        assert body["note"] == "no_steps" and "steps" in body["feedback"]
        assert body["missing_milestones"] == []


def test_milestones_partial_credit_and_missing_ones_named(client):
    steps = ["(x + 1)*(x + 1)", "x**2 + x + x + 1", "x**2 + 2*x + 1"]
    status, body = _post(client, steps=steps, milestones=["x + x"])
    assert status == 200 and body["status"] == "correct" and body["score"] == 1.0, body
    assert body["missing_milestones"] == [] and body["first_error"] is None
    status, body = _post(client, steps=[steps[0], steps[2]], milestones=["x + x"], lang="zh")
    assert status == 200 and body["status"] == "incorrect" and body["score"] == 0.5, body
    assert [m["expr"] for m in body["missing_milestones"]] == ["x + x"]
    assert "x + x" in body["missing_milestones"][0]["feedback"] and "关键步骤" in body["feedback"]
    assert [s["index"] for s in body["steps"]] == [0, 1]


def test_goal_in_value_but_not_in_form(client):
    status, body = _post(client, steps=["(x + 1)*(x + 1)", "1 + x*(x + 2)"])
    assert status == 200 and body["status"] == "incorrect" and body["note"] == "goal_form", body


def test_bad_milestones_are_422_naming_the_field(client):
    for milestones, field in ((["x +"], "milestones[0]"), (["x + x", 3], "milestones[1]"), ("x", "milestones"),
                              (["x"] * 21, "milestones"), (["x + 1"], "milestones[0]")):  # (x + 1) is in the start
        resp = client.post(URL, json={"start": START, "goal": GOAL, "variables": X, "steps": [START],
                                      "milestones": milestones})
        assert resp.status_code == 422, (milestones, resp.get_json())
        assert resp.get_json()["error"]["field"] == field, (milestones, resp.get_json())


def test_openapi_documents_milestones(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    assert "milestones" in schemas["DerivationCheckRequest"]["properties"]
    assert "missing_milestones" in schemas["Verdict"]["properties"]
