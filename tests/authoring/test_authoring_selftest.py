"""A broken question is saved as a draft with precise self-test failures (part, seed, reason) and can never
be published; a schema error is refused outright; YAML bodies work like JSON ones."""

from __future__ import annotations

from checkers.bank import dump_question, params_for


def _broken(authoring_question, qid):
    return authoring_question(qid)


def _create(client, token, data):
    return client.post("/api/v1/questions", json=data, headers={"Authorization": f"Bearer {token}"})


def _assert_unpublishable(client, token, qid, failures_expected):
    h = {"Authorization": f"Bearer {token}"}
    r = client.post(f"/api/v1/questions/{qid}/publish", headers=h)
    assert r.status_code == 409, r.get_json()
    err = r.get_json()["error"]
    assert err["code"] == "selftest_failed"
    assert err["failures"] == failures_expected
    assert client.get(f"/api/v1/questions/{qid}?variant=1").status_code == 404  # learners never see it
    versions = client.get(f"/api/v1/questions/{qid}/versions", headers=h).get_json()["versions"]
    assert [v["status"] for v in versions] == ["draft"]


def test_authoring_expected_that_does_not_parse(authoring_client, authoring_creds, authoring_question):
    data = authoring_question("auth-broken-parse")
    data["parts"][0]["expected"] = {"expr": "2*p +"}
    r = _create(authoring_client, authoring_creds["author_token"], data)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["status"] == "draft" and body["publishable"] is False
    report = body["selftest"]
    assert report["ok"] is False and report["seeds"] >= 20
    part_a = [f for f in report["failures"] if f["part"] == "a"]
    # the expression's parse error once, with its field and the column inside the expression ...
    parse = [f for f in part_a if f["check"] == "expression"]
    assert len(parse) == 1 and parse[0]["field"] == "parts[0].expected.expr" and parse[0]["expr_column"] == 5
    # ... and the self-test's failure once, naming every seed it occurs on
    computed = [f for f in part_a if f["check"] == "expected"]
    assert len(computed) == 1 and computed[0]["seeds"] == list(range(report["seeds"]))
    assert "expected answer cannot be computed" in computed[0]["reason"] and "'+'" in computed[0]["reason"]
    assert not [f for f in report["failures"] if f["part"] == "b"]  # the healthy part is not blamed
    _assert_unpublishable(authoring_client, authoring_creds["author_token"], "auth-broken-parse", report["failures"])


def test_authoring_engine_call_failing_for_some_seeds(authoring_client, authoring_creds, authoring_question):
    data = authoring_question("auth-broken-engine")
    data["params"] = {"p": {"uniform": [0.2, 0.8], "round": 2}, "x": {"uniform": [-0.4, 0.8], "round": 2},
                      "y": {"expr": "1 - x"}}
    data["parts"][0]["expected"] = {"call": "kl.exact", "args": {"p": ["{{x}}", "{{y}}"], "q": [0.5, 0.5]},
                                    "output": "kl"}
    data["parts"][0]["mistakes"] = []
    bad_seeds = {s for s in range(20) if params_for(data, s)["x"] < 0}
    assert bad_seeds and bad_seeds != set(range(20))  # the test is about *some* seeds
    r = _create(authoring_client, authoring_creds["author_token"], data)
    assert r.status_code == 201
    report = r.get_json()["selftest"]
    part_a = [f for f in report["failures"] if f["part"] == "a"]
    assert len(part_a) == 1 and set(part_a[0]["seeds"]) == bad_seeds  # once, with every failing seed
    assert all("kl.exact" in f["reason"] for f in part_a)
    assert set().union(*(f["seeds"] for f in report["failures"])) == bad_seeds  # healthy seeds not reported
    _assert_unpublishable(authoring_client, authoring_creds["author_token"], "auth-broken-engine", report["failures"])


def test_authoring_mistake_equal_to_correct_answer(authoring_client, authoring_creds, authoring_question):
    data = authoring_question("auth-broken-mistake")
    data["parts"][0]["mistakes"].append({"expr": "p + p", "note": "same-as-correct",
                                         "feedback": {"en": "Same.", "zh": "相同。"}})
    data["parts"][1]["mistakes"].append({"answer": "no", "note": "choice-same",
                                         "feedback": {"en": "Same.", "zh": "相同。"}})
    r = _create(authoring_client, authoring_creds["author_token"], data)
    report = r.get_json()["selftest"]
    assert report["ok"] is False
    for part, note in (("a", "same-as-correct"), ("b", "choice-same")):
        mine = [f for f in report["failures"] if f["part"] == part]
        assert len(mine) == 1 and mine[0]["seeds"] == list(range(20)), (part, mine[:3])
        assert all(f"known mistake {note!r}" in f["reason"] and "equals the correct answer" in f["reason"]
                   for f in mine), mine[:3]
    _assert_unpublishable(authoring_client, authoring_creds["author_token"], "auth-broken-mistake", report["failures"])


def test_authoring_schema_error_is_refused_and_nothing_stored(authoring_client, authoring_creds, authoring_question):
    data = authoring_question("auth-broken-schema")
    data["parts"][1]["kind"] = "telepathy"
    r = _create(authoring_client, authoring_creds["author_token"], data)
    assert r.status_code == 422
    err = r.get_json()["error"]
    assert err["code"] == "invalid_question" and err["field"].startswith("parts[1]")
    assert err["failures"][0]["part"] == "b" and err["failures"][0]["seed"] is None
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    assert authoring_client.get("/api/v1/questions/auth-broken-schema/versions", headers=h).status_code == 404


def test_authoring_fixed_draft_publishes(authoring_client, authoring_creds, authoring_question):
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    data = authoring_question("auth-fixable")
    data["parts"][0]["expected"] = {"expr": "2*p +"}
    assert _create(authoring_client, authoring_creds["author_token"], data).status_code == 201
    fixed = authoring_question("auth-fixable")
    r = authoring_client.put("/api/v1/questions/auth-fixable", data=dump_question(fixed),
                             headers={**h, "Content-Type": "application/yaml"})
    assert r.status_code == 201 and r.get_json()["selftest"]["ok"] and r.get_json()["version"] == 2
    # publishing the newest draft; the broken v1 still cannot be published
    assert authoring_client.post("/api/v1/questions/auth-fixable/publish", json={"version": 1},
                                 headers=h).status_code == 409
    r = authoring_client.post("/api/v1/questions/auth-fixable/publish", headers=h)
    assert r.status_code == 200 and r.get_json()["status"] == "published"
    assert authoring_client.get("/api/v1/questions/auth-fixable?variant=2").get_json()["version"] == 2
    # an unchanged re-save does not create a version; a second publish of a published version is refused
    assert authoring_client.post("/api/v1/questions/auth-fixable/publish", headers=h).status_code == 409
    assert authoring_client.post("/api/v1/questions", json=fixed, headers=h).status_code == 409


def test_authoring_yaml_body_and_bad_content_type(authoring_client, authoring_creds, authoring_question):
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    text = dump_question(authoring_question("auth-yaml-body"))
    r = authoring_client.post("/api/v1/questions", data=text, headers={**h, "Content-Type": "application/yaml"})
    assert r.status_code == 201 and r.get_json()["selftest"]["ok"]
    r = authoring_client.post("/api/v1/questions", data=text, headers={**h, "Content-Type": "text/plain"})
    assert r.status_code == 415
    r = authoring_client.post("/api/v1/questions", data="a: [1", headers={**h, "Content-Type": "application/yaml"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "malformed_yaml"
