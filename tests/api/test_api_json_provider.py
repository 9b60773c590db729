"""The app's JSON in and out (quizapp.httpkit.jsonio, quizapp.storage.json_columns): answers and JSON columns
encoded by orjson, with the standard library taking over wherever orjson would answer differently, so what
clients and the database read is the same JSON value as before."""

import json
import math
from datetime import datetime, timezone

import pytest
from flask import Flask, jsonify

from quizapp.httpkit import jsonio
from quizapp.storage import json_columns


@pytest.fixture
def app():
    app = Flask(__name__)
    app.json = jsonio.BoundedJSONProvider(app)
    return app


def test_an_answer_is_the_same_json_value_as_the_standard_encoders(app):
    doc = {"attempt_id": "a1", "score": 0.1, "tiny": 1e-06, "big": 2 ** 60, "text": "KL 散度 ≥ 0",
           "nested": [1, None, True, {"x": [0.5, "é"]}], "empty": {}}
    with app.app_context():
        resp = jsonify(doc)
    body = resp.get_data()
    assert json.loads(body) == doc
    assert body.endswith(b"\n") and resp.mimetype == "application/json"
    assert "散度".encode() in body  # written as UTF-8, not escaped: the orjson path answered
    assert app.json.loads(app.json.dumps(doc)) == doc


def test_what_orjson_refuses_goes_to_the_standard_encoder(app):
    huge = 2 ** 70  # past 64 bits: orjson raises, the standard encoder writes it
    with app.app_context():
        body = jsonify({"n": huge, 3: "int key"}).get_data()
    assert json.loads(body) == {"n": huge, "3": "int key"}
    assert json_columns.loads_text(json_columns.dumps_text({"n": huge})) == {"n": huge}


def test_dates_keep_flasks_http_format(app):
    at = datetime(2026, 11, 27, 8, 30, 15, tzinfo=timezone.utc)
    with app.app_context():
        body = jsonify({"at": at}).get_data()
    assert json.loads(body) == {"at": "Fri, 27 Nov 2026 08:30:15 GMT"}


def test_bodies_read_as_the_standard_decoder_read_them(app):
    loads = app.json.loads
    assert loads(b'{"a": [1, 2.5, "\\u00e9"]}') == {"a": [1, 2.5, "é"]}
    assert math.isnan(loads("NaN"))  # orjson refuses the literal; the standard decoder reads it, as before
    assert loads(str(2 ** 80)) == 2 ** 80
    with pytest.raises(ValueError):
        loads("[" * 100_000 + "]" * 100_000)  # too deep for either decoder: a client error
    with pytest.raises(ValueError):
        loads("{not json")


def test_older_rows_with_nan_are_still_read():
    assert math.isnan(json_columns.loads_text('{"x": NaN}')["x"])  # written by the standard encoder before orjson
    assert json_columns.dumps_text({1: "a"}) == '{"1":"a"}'
