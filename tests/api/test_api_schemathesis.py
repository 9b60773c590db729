"""Schemathesis over ``/api/v1/openapi.json``, bounded: a few generated requests per operation (derandomised,
so every run sends the same ones), in process against the app. No answer may be a 5xx, and every answer
must match what the document says of it: its schema, its content type, and a documented status code.

(``benchmarks/bench_schemathesis.py`` runs every check, including whether the server accepts exactly
what the document allows; those disagreements are listed there, not asserted here.)
"""

import collections

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import (content_type_conformance, not_a_server_error, response_schema_conformance,
                                 status_code_conformance)

from checkers import sandbox
from quizapp import testing

EXAMPLES = 3
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance, status_code_conformance]


def _titles(exc):
    subs = getattr(exc, "exceptions", None)
    if subs:
        return [t for sub in subs for t in _titles(sub)]
    return [f"{getattr(exc, 'title', type(exc).__name__)}: {str(exc).strip()[:300]}"]


@pytest.mark.slow
def test_no_5xx_and_every_response_as_documented(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "_inprocess", True)  # grade in this process: the test is about the API
    app = testing.make_app(tmp_path)
    testing.load_sample(app)
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    failures = collections.defaultdict(set)
    operations = 0
    for result in schema.get_all_operations():
        op = result.ok()
        operations += 1

        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
        @given(case=op.as_strategy())
        def run(case):
            try:
                case.call_and_validate(checks=CHECKS)
            except BaseException as exc:  # noqa: BLE001 - collect every operation's failures, then assert
                failures[op.label].update(_titles(exc))

        run()
    assert operations >= 20  # the document lists the API, not a fragment of it
    assert not failures, dict(failures)
