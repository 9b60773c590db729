"""Schemathesis over ``/api/v1/openapi.json`` with every check, a bounded number of examples per operation
(a script that prints figures, not a test): how far the document and the server disagree.

Runs in process against the WSGI app (a temporary SQLite database holding the sample question; grading in
process; rate limits off), ``--examples`` generated cases per operation, derandomised so two runs compare.
Prints each operation's distinct failures (a 5xx, a response outside the document, a request valid by
the document but rejected, an invalid one accepted, an undocumented status) and the totals, over requests
valid by the document and invalid ones (``--mode``). A valid request refused with the 422 of one of the
operation's ``x-422-rules`` (rules between fields that a schema cannot state) is counted apart, not as a
failure: tests/api/test_api_schemathesis.py asserts the same.

    python benchmarks/bench_schemathesis.py --examples 5
    python benchmarks/bench_schemathesis.py --examples 5 --token author    # every request as an author
    python benchmarks/bench_schemathesis.py --examples 5 --token learner   # as a signed-up learner

``--token`` sends ``Authorization: Bearer`` with every request: an author's API token (an authors row made
with ``create_author``) or a learner account's (signed up, then ``create_token``), so the operations behind
authentication answer past their 401 too.
"""

from __future__ import annotations

from pathlib import Path
import sys

import argparse
import collections
import os
import tempfile
import time


def _titles(exc: BaseException) -> list[str]:
    subs = getattr(exc, "exceptions", None)
    if subs:
        return [t for sub in subs for t in _titles(sub)]
    title = getattr(exc, "title", None) or type(exc).__name__
    return [str(title) + (": " + " ".join(str(exc).split())[:260] if "-v" in sys.argv else "")]


def _json(response):
    try:
        return response.json()
    except ValueError:
        return None


def _token(app, who: str) -> str:
    """A fresh API token of an author (``who == "author"``) or of a signed-up learner account."""
    from quizapp.accounts import service
    from quizapp.auth import create_author, create_token
    from quizapp.storage.db import get_db

    with app.app_context():
        session = get_db(app).Session()
        try:
            if who == "author":
                owner = create_author(session, "bench-author", "a-long-enough-pass-phrase-7").id
            else:
                owner = service.signup(session, "bench-learner@example.org", "a long passphrase 42")
            return create_token(session, owner, "bench")[1]
        finally:
            session.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--mode", choices=["positive", "negative", "all"], default="all",
                    help="requests valid by the document, invalid ones, or both (default)")
    ap.add_argument("--token", choices=["none", "author", "learner"], default="none",
                    help="send every request with an author's or a learner account's bearer token")
    ap.add_argument("-v", action="store_true", help="print each failure's message too")
    args = ap.parse_args()
    os.environ.setdefault("CHECKERS_SANDBOX", "inprocess")
    import schemathesis
    from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES
    from schemathesis.generation import GenerationMode
    from schemathesis.core.parameters import ParameterLocation
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis.errors import Unsatisfiable

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
    import quiz_testing as testing
    from schemathesis.openapi.checks import RejectedPositiveData

    from quizapp.httpkit.openapi import breaks_rule

    app = testing.make_app(tempfile.mkdtemp(prefix="bench-st-"))
    testing.load_sample(app)
    headers = {"Authorization": f"Bearer {_token(app, args.token)}"} if args.token != "none" else {}
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    rejection = schema.config.checks.negative_data_rejection
    # 413 refuses a request too: the document lists it where a body or a field (a code answer's source,
    # its maxLength) is over a size limit; schemathesis' default rejection statuses leave it out.
    rejection.expected_statuses = [*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "413"]
    by_rule: collections.Counter = collections.Counter()
    failures: dict[str, collections.Counter] = {}
    started = time.perf_counter()
    operations = 0
    modes = list(GenerationMode) if args.mode == "all" else [GenerationMode(args.mode)]
    for result in schema.get_all_operations():
        op = result.ok()
        operations += 1
        found: collections.Counter = collections.Counter()
        rules = document["paths"][op.path][op.method.lower()].get("x-422-rules", [])
        for mode in modes:

            @settings(max_examples=args.examples, deadline=None, derandomize=True, database=None,
                      suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
            @given(case=op.as_strategy(generation_mode=mode))
            def run(case):
                # A case made invalid by leaving out a required header (the bearer token) goes without it.
                sent = headers if case.meta is None or not case.meta.is_negative_at(ParameterLocation.HEADER) \
                    else {}
                response = case.call(headers=sent)
                try:
                    case.validate_response(response, headers=sent or None)
                except BaseException as exc:  # noqa: BLE001 - every failure is counted, none stops the run
                    for leaf in getattr(exc, "exceptions", None) or [exc]:
                        if isinstance(leaf, RejectedPositiveData) and breaks_rule(
                                rules, response.status_code, _json(response)):
                            by_rule[op.label] += 1
                        else:
                            found.update(_titles(leaf))

            try:
                run()
            except Unsatisfiable:
                pass  # nothing to make invalid (an operation without parameters or body): no case to send
            except BaseException as exc:  # noqa: BLE001 - a case that cannot even be generated
                found.update(_titles(exc))
        if found:
            failures[op.label] = found
    elapsed = time.perf_counter() - started
    for label, found in sorted(failures.items()):
        for title, n in sorted(found.items()):
            print(f"{label:<48} {title} (x{n})")
    for label, n in sorted(by_rule.items()):
        print(f"{label:<48} refused by a documented x-422-rule (x{n}, not a failure)")
    distinct = sum(len(f) for f in failures.values())
    print(f"{operations} operations, {args.examples} examples each ({args.mode}, token {args.token}): "
          f"{distinct} distinct failures "
          f"in {len(failures)} operations, {elapsed:.1f} s")


if __name__ == "__main__":
    main()
