"""The document's ``x-422-rules``: each names a field its operation has, and only a 422 with the rule's code
naming that field (or an element of it) counts as breaking it."""

from quizapp.httpkit.openapi import breaks_rule


def _fields(document, op):
    names = {p["name"] for p in op.get("parameters", [])}
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return names | set(schema.get("properties", {}))


def test_every_rule_names_a_field_of_its_operation(client):
    document = client.get("/api/v1/openapi.json").get_json()
    ruled = []
    for path, operations in document["paths"].items():
        for method, op in operations.items():
            for rule in op.get("x-422-rules", []):
                assert set(rule) == {"field", "code", "rule"}, (path, rule)
                assert rule["field"] in _fields(document, op), (method, path, rule)
                ruled.append(f"{method.upper()} {path}")
    assert {"POST /api/v1/check/symbolic", "POST /api/v1/check/derivation", "POST /api/v1/check/code",
            "GET /api/v1/attempts", "GET /api/v1/search", "POST /api/v1/account/signup"} <= set(ruled)


def test_only_the_rules_422_on_the_rules_field_breaks_it():
    rules = [{"field": "constants", "code": "invalid_field", "rule": "names a declared variable"}]

    def envelope(field, code="invalid_field"):
        return {"error": {"code": code, "message": "m", "field": field}}

    assert breaks_rule(rules, 422, envelope("constants"))
    assert breaks_rule(rules, 422, envelope("constants[2]"))
    assert not breaks_rule(rules, 422, envelope("constantsx"))      # another field, not an element
    assert not breaks_rule(rules, 422, envelope("expected"))
    assert not breaks_rule(rules, 422, envelope("constants", code="missing_field"))
    assert not breaks_rule(rules, 400, envelope("constants"))
    assert not breaks_rule(rules, 422, None)
    assert not breaks_rule(rules, 422, envelope(None))


def test_code_checks_list_every_engine_function(client):
    from checkers.reference import names
    document = client.get("/api/v1/openapi.json").get_json()
    functions = document["components"]["schemas"]["CodeCheckRequest"]["properties"]["function"]["enum"]
    assert functions == names()
    # reward.kl_in_reward needs the scalar kl_coef: the check draws it per case and passes it
    resp = client.post("/api/v1/check/code", json={"function": "reward.kl_in_reward", "source": "x = 1"})
    assert resp.status_code == 200 and resp.get_json()["note"] == "missing_function"
    assert resp.get_json()["args"][-1] == "kl_coef"
    # an args value the engine refuses is the 422 of a documented rule, naming args.<name>
    op = document["paths"]["/api/v1/check/code"]["post"]
    bad = client.post("/api/v1/check/code", json={"function": "dpo.loss", "source": "x = 1", "args": {"beta": -1}})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "args.beta"
    assert breaks_rule(op["x-422-rules"], 422, bad.get_json())
