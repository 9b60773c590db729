"""Hostile request bodies on every endpoint that takes one: a 4xx envelope naming the field, never a 500.

The siblings of the inputs that once crashed the service: text that is not Unicode (a lone surrogate, which
JSON can carry as ``\\ud800`` and UTF-8 cannot encode), nesting deeper than a parser's stack, and numbers
too long to convert (YAML integers beyond 4,300 digits, YAML timestamps that are no date). Plus the numbers
the document's ``integer`` type admits in decimal form (``10.0``), which the server must read as integers.
"""

import json

import pytest

from quizapp.auth import create_author, create_token
from quizapp.storage.db import get_db
from quiz_testing import SAMPLE_QUESTION

QID = SAMPLE_QUESTION["id"]
#: Path parameters filled in so that each body reaches its endpoint's body parsing.
PATH_VALUES = {"{qid}": QID, "{name}": "kl.k3", "{attempt_id}": "none", "{token_id}": "1", "{token}": "none"}


@pytest.fixture
def author_headers(app):
    with app.app_context():
        session = get_db(app).Session()
        author = create_author(session, "hostile-author", "a-long-enough-pass-phrase-7")
        _, token = create_token(session, author.id, "hostile")
        session.close()
    return {"Authorization": f"Bearer {token}"}


def _json_body_operations(app):
    """(method, url, first property) of every documented operation whose body may be JSON."""
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    out = []
    for path, operations in document["paths"].items():
        for method, op in operations.items():
            media = (op.get("requestBody") or {}).get("content", {}).get("application/json")
            if media is None:
                continue
            schema = media.get("schema", {})
            if "$ref" in schema:
                schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
            url = path
            for name, value in PATH_VALUES.items():
                url = url.replace(name, value)
            out.append((method.upper(), url, next(iter(schema.get("properties", {})), "text")))
    return out


def _envelope(resp, status):
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    assert resp.mimetype == "application/json"
    return resp.get_json()["error"]


def test_every_json_body_operation_is_found(app):
    operations = _json_body_operations(app)
    # The API's bodies: answers, checks, the engine, authoring, accounts, review, practice.
    assert len(operations) >= 15
    assert ("POST", "/api/v1/account/login", "email") in operations
    assert ("POST", "/api/v1/review/rate", "question_id") in operations


def test_a_lone_surrogate_is_a_422_naming_its_field_on_every_json_body(app, client, author_headers):
    """Every body that is read is refused naming the field; the few operations that need a signed-in
    session (not the author's token) stop at their 401/403 before reading the body."""
    refused, gated = [], []
    for method, url, prop in _json_body_operations(app):
        raw = json.dumps({prop: "ab\ud800"})  # ensure_ascii: the text carries the escape \ud800
        assert "\\ud800" in raw
        resp = client.open(url, method=method, data=raw, content_type="application/json", headers=author_headers)
        if resp.status_code in (401, 403):
            gated.append(url)
            continue
        error = _envelope(resp, 422)
        assert error["field"] == prop, (method, url, error)
        assert "surrogate" in error["message"]
        refused.append(url)
    assert len(refused) >= 12 and len(gated) <= 3, (refused, gated)


@pytest.mark.parametrize("url,body", [
    ("/api/v1/account/login", {"email": "x\udfffy@example.org", "password": "a-long-enough-pass-phrase"}),
    ("/api/v1/account/login", {"email": "someone@example.org", "password": "pass\ud800phrase-long"}),
    ("/api/v1/review/rate", {"question_id": "\ud800", "rating": "good"}),
])
def test_lone_surrogates_that_reached_the_database_are_refused(client, url, body):
    """These three were 500s: the text reached a SQL parameter, which must be encodable as UTF-8."""
    field = next(name for name, value in body.items() if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value))
    error = _envelope(client.post(url, data=json.dumps(body), content_type="application/json"), 422)
    assert error["field"] == field


def test_a_surrogate_deep_in_a_body_names_its_path_and_a_key_names_its_object(client):
    raw = json.dumps({"variant": 0, "answers": {"a": "1", "b": ["x", "\ud800"]}})
    error = _envelope(client.post(f"/api/v1/questions/{QID}/attempts", data=raw,
                                  content_type="application/json"), 422)
    assert error["field"] == "answers.b[1]"
    raw = json.dumps({"variant": 0, "answers": {"\udc00": "1"}})
    error = _envelope(client.post(f"/api/v1/questions/{QID}/attempts", data=raw,
                                  content_type="application/json"), 422)
    assert error["field"] == "answers"


def test_a_surrogate_pair_is_text_not_an_error(client):
    """An emoji escaped as a pair (\\ud83d\\ude00, as json.dumps writes it) is valid Unicode: the answer is
    read (and refused by the maths parser as a symbol), not refused as broken text."""
    raw = json.dumps({"expected": "x", "answer": "x\U0001F600", "variables": {"x": {}}})
    assert "\\ud83d\\ude00" in raw
    resp = client.post("/api/v1/check/symbolic", data=raw, content_type="application/json")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["status"] == "invalid"


def test_nesting_deeper_than_the_decoder_is_a_400_on_every_json_body(app, client, author_headers):
    deep = "[" * 100_000 + "]" * 100_000
    for method, url, prop in _json_body_operations(app):
        raw = '{"%s": %s}' % (prop, deep)
        resp = client.open(url, method=method, data=raw, content_type="application/json", headers=author_headers)
        if resp.status_code not in (401, 403):  # a session-only operation stops before the body
            assert _envelope(resp, 400)["code"] == "malformed_json", (method, url)


@pytest.mark.parametrize("scalar", ["9" * 5000, "2026-13-45", "2026-02-30 10:00:00"])
@pytest.mark.parametrize("method,url", [("POST", "/api/v1/questions"), ("PUT", f"/api/v1/questions/{QID}")])
def test_a_yaml_scalar_that_cannot_be_built_is_a_400(client, author_headers, scalar, method, url):
    text = f"id: {QID}\nversion: {scalar}\n"
    resp = client.open(url, method=method, data=text, content_type="application/yaml", headers=author_headers)
    error = _envelope(resp, 400)
    assert error["code"] == "malformed_yaml"
    assert "sys." not in error["message"]  # names the value, not interpreter settings


def test_a_yaml_integer_too_long_to_convert_fails_the_import_not_the_server(client, author_headers):
    text = f"id: {QID}\nversion: {'9' * 5000}\n"
    resp = client.post("/api/v1/import", data=text, content_type="application/yaml", headers=author_headers)
    error = _envelope(resp, 422)
    assert error["code"] == "import_failed"


def test_an_integral_decimal_is_an_integer_where_the_document_says_integer(client):
    """JSON Schema's integer type admits 10.0: the query's limit and the rating read it as 10 and 3."""
    page = client.get("/api/v1/attempts?limit=10.0")
    assert page.status_code == 200, page.get_data(as_text=True)
    assert _envelope(client.get("/api/v1/attempts?limit=10.5"), 422)["field"] == "limit"
    assert _envelope(client.get("/api/v1/attempts?limit=1e1"), 422)["field"] == "limit"
    resp = client.post("/api/v1/review/rate", json={"question_id": QID, "rating": 3.0})
    assert resp.status_code == 409, resp.get_data(as_text=True)  # read as 3; nothing to rate yet
    assert _envelope(client.post("/api/v1/review/rate", json={"question_id": QID, "rating": 3.5}),
                     422)["field"] == "rating"


def test_the_query_lang_is_checked_even_when_the_body_names_one(client):
    resp = client.post("/api/v1/check/symbolic?lang=xx", json={"expected": "x", "answer": "x", "lang": "en"})
    assert _envelope(resp, 422)["field"] == "lang"
    resp = client.post("/api/v1/check/symbolic?lang=", json={"expected": "x", "answer": "x", "lang": "zh",
                                                             "variables": {"x": {}}})
    assert resp.status_code == 200  # an empty query value is no value: the body's language applies


@pytest.mark.parametrize("lang", ["", "EN", "zh-CN", None, 1, ["en"]])
def test_the_body_lang_is_one_of_the_documented_codes(client, lang):
    resp = client.post("/api/v1/check/symbolic", json={"expected": "x", "answer": "x", "lang": lang,
                                                        "variables": {"x": {}}})
    assert _envelope(resp, 422)["field"] == "lang"
    for code in ("en", "zh"):
        resp = client.post("/api/v1/check/symbolic", json={"expected": "x", "answer": "x", "lang": code,
                                                            "variables": {"x": {}}})
        assert resp.status_code == 200


def test_the_query_lang_is_one_of_the_documented_codes(client):
    for lang in ("EN", "zh-CN", "zh_Hans"):
        assert _envelope(client.get(f"/api/v1/questions?lang={lang}"), 422)["field"] == "lang"
        assert _envelope(client.get(f"/api/v1/search?lang={lang}"), 422)["field"] == "lang"


def test_search_refuses_a_language_it_does_not_speak(client):
    assert _envelope(client.get("/api/v1/search?lang=xx"), 422)["field"] == "lang"
    assert client.get("/api/v1/search?lang=").status_code == 200  # empty: the default, as documented
    assert client.get("/api/v1/search?lang=zh").status_code == 200


def test_a_question_id_longer_than_stored_is_refused_as_documented(client):
    document = client.get("/api/v1/openapi.json").get_json()
    assert document["components"]["schemas"]["RateRequest"]["properties"]["question_id"]["maxLength"] == 80
    error = _envelope(client.post("/api/v1/review/rate", json={"question_id": "q" * 81, "rating": "good"}), 422)
    assert error["field"] == "question_id"
    assert _envelope(client.post("/api/v1/review/rate", json={"question_id": "q" * 80, "rating": "good"}),
                     409)["code"] == "nothing_to_rate"
