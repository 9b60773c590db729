"""Schemathesis over ``/api/v1/openapi.json`` with every check, bounded: a few generated requests per
operation, valid by the document and invalid by it (derandomised, so every run sends the same ones), in
process against the app. No answer may be a 5xx or outside the document (schema, content type, status),
every request the document allows is accepted and every request it forbids is refused.

The one allowance is the document's own: a schema-valid request that breaks one of the operation's
``x-422-rules`` (a rule between fields that JSON Schema cannot state, e.g. a constant that names no declared
variable) is a 422 naming that rule's field with its code; any other refusal of a valid request fails.
"""

import collections

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode
from schemathesis.openapi.checks import RejectedPositiveData

from checkers import sandbox
from quizapp.httpkit.openapi import breaks_rule
import quiz_testing as testing

EXAMPLES = 3


def _leaves(exc):
    subs = getattr(exc, "exceptions", None)
    return [leaf for sub in subs for leaf in _leaves(sub)] if subs else [exc]


def _title(exc):
    return f"{getattr(exc, 'title', type(exc).__name__)}: {' '.join(str(exc).split())[:300]}"


def _json(response):
    try:
        return response.json()
    except ValueError:
        return None


@pytest.mark.slow
def test_every_check_passes_on_every_operation(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "_inprocess", True)  # grade in this process: the test is about the API
    app = testing.make_app(tmp_path)
    testing.load_sample(app)
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    failures = collections.defaultdict(set)
    sent = collections.Counter()
    operations = 0
    for result in schema.get_all_operations():
        op = result.ok()
        operations += 1
        rules = document["paths"][op.path][op.method.lower()].get("x-422-rules", [])
        for mode in GenerationMode:

            @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                      suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
            @given(case=op.as_strategy(generation_mode=mode))
            def run(case):
                response = case.call()
                sent[mode] += 1
                try:
                    case.validate_response(response)
                except BaseException as exc:  # noqa: BLE001 - collect every operation's failures, then assert
                    for leaf in _leaves(exc):
                        if isinstance(leaf, RejectedPositiveData) and breaks_rule(
                                rules, response.status_code, _json(response)):
                            continue
                        failures[op.label].add(_title(leaf))

            try:
                run()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE, op.label  # only "nothing to make invalid" is allowed
    assert operations >= 30  # the document lists the API, not a fragment of it
    assert sent[GenerationMode.POSITIVE] >= operations and sent[GenerationMode.NEGATIVE] >= operations // 2
    assert not failures, dict(failures)
