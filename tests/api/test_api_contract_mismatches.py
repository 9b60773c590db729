"""Where the OpenAPI document and the server once disagreed (schemathesis with an author's and a learner's
token): each request below is now answered as the document says.

- ``variables: {"A": null}``: the document's assumptions are an object, so null is a 422 naming
  ``variables.A`` (it was read as "no assumptions").
- A variant written as an integral number (``15970.0``) is the integer the document's ``integer`` admits;
  a non-integral one (``15970.5``) is a 422.
- ``{"version": 0}`` on publish is refused, and the document says so (``minimum: 1``).
- An empty ``format`` on the account export means the default (the document's ``allowEmptyValue``).
- An empty ``lang`` query value is documented as absent (English); an empty ``lang`` in a body is a 422.
- Every 422 a schema-valid question file or import can get is one of the operation's ``x-422-rules``.
"""

import pytest

from quizapp.accounts import service as account_service
from quizapp.httpkit.openapi import breaks_rule
from quizapp.auth import create_author, create_token
from quizapp.storage.db import get_db
from quiz_testing import SAMPLE_QUESTION

QID = SAMPLE_QUESTION["id"]


def _bearer(app, author: bool) -> dict[str, str]:
    with app.app_context():
        session = get_db(app).Session()
        try:
            if author:
                owner = create_author(session, "contract-author", "a-long-enough-pass-phrase-7").id
            else:
                owner = account_service.signup(session, "contract@example.org", "a long passphrase 42")
            return {"Authorization": f"Bearer {create_token(session, owner, 'contract')[1]}"}
        finally:
            session.close()


def _op(client, path, method):
    return client.get("/api/v1/openapi.json").get_json()["paths"][path][method]


def test_null_assumptions_are_refused(client):
    resp = client.post("/api/v1/check/symbolic", json={"expected": "A", "answer": "A", "variables": {"A": None}})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "variables.A"
    fine = client.post("/api/v1/check/symbolic", json={"expected": "A", "answer": "A", "variables": {"A": {}}})
    assert fine.status_code == 200 and fine.get_json()["status"] == "correct"


def test_an_integral_float_variant_is_that_variant(client):
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": 15970.0, "answers": {}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    assert resp.get_json()["variant"] == 15970 and isinstance(resp.get_json()["variant"], int)
    # the numeric part has no practice check: the variant 7.0 is read, then the part is what is refused
    check = client.post(f"/api/v1/questions/{QID}/check", json={"variant": 7.0, "part": "a", "answer": "1.22"})
    assert check.status_code == 422 and check.get_json()["error"]["code"] == "no_check"
    for path, body in [(f"/api/v1/questions/{QID}/attempts", {"variant": 15970.5, "answers": {}}),
                       (f"/api/v1/questions/{QID}/check", {"variant": 7.25, "part": "a", "answer": "1"}),
                       (f"/api/v1/questions/{QID}/validate", {"variant": 0.5, "part": "a", "answer": "1"}),
                       (f"/api/v1/questions/{QID}/attempts", {"variant": True, "answers": {}})]:
        bad = client.post(path, json=body)
        assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "variant", (path, body)
    schema = client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["AttemptRequest"]
    assert schema["properties"]["variant"]["type"] == "integer" and "15970.0" in \
        schema["properties"]["variant"]["description"]


def test_publish_version_has_the_servers_minimum(app, client):
    schema = client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["PublishRequest"]
    assert schema["properties"]["version"]["minimum"] == 1
    headers = _bearer(app, True)
    resp = client.post(f"/api/v1/questions/{QID}/publish", json={"version": 0}, headers=headers)
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "version"
    # 1.0 is version 1 (published already: a conflict, not a type error); 1.5 is not an integer
    same = client.post(f"/api/v1/questions/{QID}/publish", json={"version": 1.0}, headers=headers)
    assert same.status_code == 409 and same.get_json()["error"]["code"] == "not_a_draft"
    half = client.post(f"/api/v1/questions/{QID}/publish", json={"version": 1.5}, headers=headers)
    assert half.status_code == 422 and half.get_json()["error"]["field"] == "version"


def test_bank_export_formats(app, client):
    headers = _bearer(app, True)
    assert client.get("/api/v1/export?format=&id=", headers=headers).mimetype == "application/zip"
    one = client.get(f"/api/v1/export?id={QID}&format=", headers=headers)
    assert one.status_code == 200 and one.mimetype == "application/yaml"
    op = _op(client, "/api/v1/export", "get")
    assert all(p["allowEmptyValue"] for p in op["parameters"])
    for query in (f"id={QID}&format=zip", "format=yaml"):
        bad = client.get(f"/api/v1/export?{query}", headers=headers)
        assert bad.status_code == 422 and breaks_rule(op["x-422-rules"], 422, bad.get_json()), query


def test_empty_export_format_is_the_default(app, client):
    headers = _bearer(app, False)
    resp = client.get("/api/v1/account/export?format=", headers=headers)
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert client.get("/api/v1/account/export?format=xml", headers=headers).status_code == 422


def test_empty_lang_query_is_documented_and_english_body_lang_is_refused(client):
    lang = [p for p in _op(client, "/api/v1/questions/{qid}", "get")["parameters"] if p["name"] == "lang"][0]
    assert lang["allowEmptyValue"] is True
    assert client.get(f"/api/v1/questions/{QID}?variant=1&lang=").get_json()["title"] == "Double it"
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": 1, "answers": {}, "lang": ""})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "lang"


@pytest.mark.parametrize("body", [
    {"id": "x", "level": "L1", "tags": [], "title": "t", "prompt": "p", "parts": [], "solution": {}},
    {"id": "abc", "level": "L1", "tags": [], "title": "t", "prompt": "p", "parts": [{"id": "a"}], "solution": {}},
])
def test_a_bad_question_file_breaks_a_documented_rule(app, client, body):
    resp = client.post("/api/v1/questions", json=body, headers=_bearer(app, True))
    assert resp.status_code == 422, resp.get_data(as_text=True)
    assert breaks_rule(_op(client, "/api/v1/questions", "post")["x-422-rules"], 422, resp.get_json())


@pytest.mark.parametrize("files", [[{"path": "a", "content": "b"}], [{"path": "a.yaml", "content": "b"}]])
def test_a_bad_import_breaks_a_documented_rule(app, client, files):
    resp = client.post("/api/v1/import", json={"files": files}, headers=_bearer(app, True))
    assert resp.status_code == 422, resp.get_data(as_text=True)
    assert breaks_rule(_op(client, "/api/v1/import", "post")["x-422-rules"], 422, resp.get_json())
    schema = client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["BankFiles"]
    assert schema["additionalProperties"] is False and schema["required"] == ["files"]
