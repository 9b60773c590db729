"""A learner's late submit on a question does the work of an early one: the attempt policy's history is one
stored row per (learner, question) (``practice_summaries``, quizapp.study.summary), updated in the
attempt's own transaction, so a submit runs the same statements whatever the attempts before it and reads
none of them. The row is a cache of the full history: what it gives equals the policy's walk of every
attempt, hint and solution request, and a row changed behind a submit's back is dropped and rebuilt."""

from sqlalchemy import select

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.storage.models import PracticeSummary
from quizapp.study import policy, summary

QID = testing.SAMPLE_QUESTION["id"]


def _submit(client, variant: int, answers=None):
    return client.post(f"/api/v1/questions/{QID}/attempts",
                       json={"variant": variant, "answers": answers or {"a": "1.0", "b": "yes"}})


def _kinds(statements: list[str]) -> list[str]:
    """Each statement as its verb and table (values left out), sorted: what a submit does, not with what."""
    out = []
    for s in statements:
        words = s.split()
        table = next((w for w in words if w.startswith(("attempts", "practice_", "review_cards", "learners",
                                                         "questions", "question_versions"))), "?")
        out.append(f"{words[0]} {table.split('.')[0]}")
    return sorted(out)


def _statements(app, client, variant: int) -> list[str]:
    with testing.sql_seen(get_db(app).engine) as seen:
        assert _submit(client, variant).status_code == 201
    return seen.statements


def test_the_150th_submit_runs_the_statements_of_the_second(app, client):
    assert _submit(client, 1).status_code == 201
    second = _statements(app, client, 1)
    for i in range(147):
        assert _submit(client, 1 + i % 4).status_code == 201
    late = _statements(app, client, 1)
    # the published set's fingerprint is read when its recheck is due: not part of a submit's own work
    second, late = ([s for s in batch if "count(" not in s] for batch in (second, late))
    assert _kinds(late) == _kinds(second), (second, late)
    assert not any(s.startswith("SELECT") and "FROM attempts" in s for s in late), late
    assert len(late) <= 6, late
    with app.app_context(), get_db(app).Session() as session:
        row = session.scalars(select(PracticeSummary)).one()
        assert row.attempts == 150 and row.question_id == QID


def _full_walk_state(app, learner_id: str, variant: int) -> dict:
    """The practice state from every stored attempt and event, as the policy computed it before the summary."""
    with app.app_context(), get_db(app).Session() as session:
        assert session.get(PracticeSummary, (learner_id, QID)) is not None
        from quizapp.services.questions import get_question
        data = get_question(session, QID)["data"]
        return policy.state(session, learner_id, QID, variant, data).view()


def test_the_summary_gives_what_the_full_history_gives(app, client):
    steps = [("submit", 1), ("hint", 1), ("submit", 2), ("solution", 2), ("submit", 2), ("hint", 3),
             ("submit", 3), ("submit", 3), ("submit", 3), ("submit", 4), ("submit", 1), ("hint", 4),
             ("submit", 4)]
    for action, variant in steps:
        if action == "submit":
            r = _submit(client, variant)
            assert r.status_code == 201, r.get_data(as_text=True)
        elif action == "hint":
            r = client.post(f"/api/v1/questions/{QID}/hints", json={"variant": variant, "part": "a"})
            assert r.status_code in (200, 201), r.get_data(as_text=True)
        else:
            r = client.post(f"/api/v1/questions/{QID}/solution", json={"variant": variant})
            assert r.status_code in (200, 201), r.get_data(as_text=True)
        if action == "submit":
            with app.app_context(), get_db(app).Session() as session:
                learner = session.scalars(select(PracticeSummary.learner_id)).one()
            assert r.get_json()["practice"] == _full_walk_state(app, learner, variant), (action, variant)
    # every variant's state agrees, those revealed by the last try, by a request and still running
    for variant in (1, 2, 3, 4, 5):
        walked = client.get(f"/api/v1/questions/{QID}/practice?variant={variant}")
        if walked.status_code == 200:
            assert walked.get_json()["practice"] == _full_walk_state(app, learner, variant)


def test_a_summary_changed_behind_a_submits_back_is_dropped_then_rebuilt(app, client):
    for _ in range(2):
        assert _submit(client, 7).status_code == 201
    with app.app_context(), get_db(app).Session() as session:
        from quizapp.storage.models import Attempt
        from quizapp.services.questions import get_question
        question = get_question(session, QID)
        learner = session.scalars(select(PracticeSummary.learner_id)).one()
        snapshot = summary.read(session, learner, QID, question["version_id"], question["data"])
        assert snapshot.seen == 2 and snapshot.walked.running == 2
        session.rollback()
        session.get(PracticeSummary, (learner, QID)).attempts = 5  # another submit's write, meanwhile
        session.commit()
        attempt = Attempt(id="x" * 32, learner_id=learner, question_id=QID, question_version_id=1, variant=7,
                          answers={}, verdicts={}, score=0, max_score=2, counted=False, lang="en",
                          created_at=snapshot.history[-1][0])
        summary.writer(snapshot, attempt, summary.after(snapshot, attempt, question["data"])).write(session)
        session.commit()
        assert session.get(PracticeSummary, (learner, QID)) is None  # not overwritten with a stale walk
    r = _submit(client, 7)  # rebuilt from the two stored attempts, plus this one
    assert r.status_code == 201 and r.get_json()["practice"]["tries_used"] == 3
    with app.app_context(), get_db(app).Session() as session:
        assert session.get(PracticeSummary, (learner, QID)).attempts == 3


def test_merging_a_learner_forgets_the_accounts_summaries(app, client):
    from quizapp.accounts import service as accounts

    assert _submit(client, 1).status_code == 201
    other = app.test_client()
    assert _submit(other, 1).status_code == 201
    with app.app_context(), get_db(app).Session() as session:
        rows = session.scalars(select(PracticeSummary)).all()
        assert len(rows) == 2
        account = accounts.signup(session, "merge@example.org", "a long passphrase 42")
        for row in rows:
            accounts.merge_learner(session, row.learner_id, account)
        assert session.scalars(select(PracticeSummary)).all() == []
    # the account's next submit counts both merged attempts (rebuilt from the history)
    with app.app_context(), get_db(app).Session() as session:
        from quizapp.services.attempts import submit_attempt
        body = submit_attempt(session, QID, 1, {"a": "1.0", "b": "yes"}, account)
        assert body["practice"]["tries_used"] == 3 and body["practice"]["solution_reason"] == "tries"
