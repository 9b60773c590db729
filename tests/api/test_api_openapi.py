"""The OpenAPI document describes exactly the API routes that exist."""

import re


def _doc_routes(doc):
    return {(path, method.upper()) for path, ops in doc["paths"].items() for method in ops}


def _app_routes(app):
    out = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            out.add((path, method))
    return out


def test_openapi_matches_url_map(client, app):
    doc = client.get("/api/v1/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    assert _app_routes(app) == _doc_routes(doc)


def test_every_schema_reference_resolves(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    refs = set(re.findall(r'"#/components/schemas/([A-Za-z]+)"', client.get("/api/v1/openapi.json").get_data(as_text=True)))
    assert refs and refs <= set(doc["components"]["schemas"])


def test_path_parameters_declared(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    for path, ops in doc["paths"].items():
        names = set(re.findall(r"{([^}]+)}", path))
        for op in ops.values():
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert names == declared, (path, names, declared)
            assert op["responses"]


def test_serving_the_document_leaves_every_fragment_unchanged(client, app):
    """The app merges the blueprints' fragments on copies: serving the document twice gives the same
    document, and no fragment gains the 415 / 429 answers the merged document adds."""
    import copy

    from quizapp.httpkit.openapi import fragments

    before = copy.deepcopy([f.paths for f in fragments(app.blueprints.values())])
    first = client.get("/api/v1/openapi.json").get_json()
    second = client.get("/api/v1/openapi.json").get_json()
    assert first == second
    assert [f.paths for f in fragments(app.blueprints.values())] == before
    # the merged document adds them where the fragments have none (so a fragment changed in place would
    # differ from its copy above)
    described = {path: ops for paths in before for path, ops in paths.items()}
    for path, status in (("/api/v1/account/logout", "415"), ("/api/v1/check/symbolic", "429")):
        assert status not in described[path]["post"]["responses"]
        assert status in first["paths"][path]["post"]["responses"]
