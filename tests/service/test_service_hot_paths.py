"""The hot paths do their work once per published set, not once per request: the API list is encoded once
per language and filter and served as stored bytes until a publish changes the set; the kept views stay
bounded whatever filters clients invent; a numeric attempt reads the published version once."""

import pytest

import quiz_testing as testing
from quizapp.storage import write_turn as turns
from quizapp.api import questions as api_questions
from quizapp.services import question_cache


def _counting_summaries(monkeypatch) -> list:
    calls = []
    original = api_questions._summary

    def counted(row, lang):
        calls.append((row["id"], lang))
        return original(row, lang)

    monkeypatch.setattr(api_questions, "_summary", counted)
    return calls


def test_the_list_is_encoded_once_per_published_set(app, client, monkeypatch):
    question_cache.clear()
    calls = _counting_summaries(monkeypatch)
    first = client.get("/api/v1/questions")
    second = client.get("/api/v1/questions")
    assert first.status_code == second.status_code == 200
    assert first.data == second.data and len(calls) == 1  # the second answer was the stored bytes
    assert first.mimetype == "application/json"
    testing.load_sample(app, testing.sample_question(tags=["changed"]))  # publishes version 2
    third = client.get("/api/v1/questions").get_json()["questions"]
    assert len(calls) == 2 and [(q["version"], q["tags"]) for q in third] == [(2, ["changed"])]


def test_each_language_and_filter_has_its_own_body(app, client):
    question_cache.clear()
    en = client.get("/api/v1/questions").get_json()["questions"]
    zh = client.get("/api/v1/questions?lang=zh").get_json()["questions"]
    sample = testing.SAMPLE_QUESTION
    assert en[0]["title"] == sample["title"]["en"] and zh[0]["title"] == sample["title"]["zh"]
    assert client.get("/api/v1/questions?level=" + sample["level"]).get_json()["questions"] == en
    other = next(level for level in ("L1", "L2", "L3") if level != sample["level"])
    assert client.get("/api/v1/questions?level=" + other).get_json()["questions"] == []
    assert client.get("/api/v1/questions?tag=no-such-tag").get_json()["questions"] == []
    assert client.get("/api/v1/questions").get_json()["questions"] == en  # unchanged by the others


def test_kept_views_are_bounded(app, client):
    question_cache.clear()
    for i in range(question_cache.MAX_DERIVED + 20):
        assert client.get(f"/api/v1/questions?tag=invented-{i}").get_json() == {"questions": []}
    kept = [views for _fp, views in question_cache._derived.values()]
    assert kept and all(len(views) <= question_cache.MAX_DERIVED for views in kept)
    # Past the bound a listing is still right, built for that request alone.
    assert [q["id"] for q in client.get("/api/v1/questions?lang=zh").get_json()["questions"]] == [
        testing.SAMPLE_QUESTION["id"]]


def _submit(client, variant: int = 3):
    return client.post(f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts",
                       json={"variant": variant, "answers": {"a": "1.0", "b": "yes"}})


def test_an_attempt_and_its_review_card_are_one_commit(app, client, monkeypatch):
    from quizapp.storage import group_commit
    from quizapp.storage.db import get_db
    from quizapp.storage.models import Attempt, ReviewCard

    syncs = []
    if get_db(app).engine.dialect.name == "sqlite":  # the group commit syncs the WAL itself, once per group
        real_sync = group_commit._sync_to_disk
        monkeypatch.setattr(group_commit, "_sync_to_disk", lambda path: (syncs.append(path), real_sync(path)))
    with testing.sql_seen(get_db(app).engine) as seen:
        r = _submit(client)
    assert r.status_code == 201 and r.get_json()["review"] is not None
    assert seen.commits == 1  # each commit is a wait for the disk
    assert len(syncs) == (1 if get_db(app).engine.dialect.name == "sqlite" else 0)
    with app.app_context():
        session = get_db(app).Session()
        assert session.query(Attempt).count() == 1 and session.query(ReviewCard).count() == 1
        session.close()


def _counts(app) -> tuple[int, int]:
    from quizapp.storage.db import get_db
    from quizapp.storage.models import Attempt, ReviewCard

    with app.app_context():
        session = get_db(app).Session()
        try:
            return session.query(Attempt).count(), session.query(ReviewCard).count()
        finally:
            session.close()


def test_a_card_write_failing_inside_the_transaction_keeps_the_attempt(app, client, monkeypatch):
    from quizapp.study import review

    original = review.CardChange.write

    def broken(self, session):
        original(self, session)  # the card's row is written inside the attempt's transaction, then it fails
        raise RuntimeError("card update failed")

    monkeypatch.setattr(review.CardChange, "write", broken)
    r = _submit(client)
    assert r.status_code == 201 and r.get_json()["review"] is None
    assert _counts(app) == (1, 0)  # the attempt is stored, the card's half-done write is not
    attempt = client.get(f"/api/v1/attempts/{r.get_json()['attempt_id']}").get_json()
    assert attempt["score"] == r.get_json()["score"]  # the attempt stored is the one answered


def test_a_card_that_cannot_be_rated_keeps_the_attempt(app, client, monkeypatch):
    from quizapp.study import review

    def broken(*_args, **_kwargs):
        raise RuntimeError("no card")

    monkeypatch.setattr(review, "plan_attempt", broken)
    r = _submit(client)
    assert r.status_code == 201 and r.get_json()["review"] is None
    assert _counts(app) == (1, 0)


def test_a_card_changed_between_its_rating_and_its_write_is_rated_again(app, client, monkeypatch):
    """Another attempt of the same learner on the same question (another tab, another worker) stores the
    card after this one read it: the write finds it changed and rates this attempt against the stored card,
    so neither review is lost."""
    from sqlalchemy import select, update

    from quizapp.storage.db import get_db
    from quizapp.study import review
    from quizapp.storage.models import ReviewCard

    assert _submit(client, 1).status_code == 201
    original = review.plan_attempt

    def raced(*args, **kwargs):
        change = original(*args, **kwargs)  # this attempt has read and rated the card
        other = get_db(app).Session()  # the other attempt stores its review before this one's turn
        other.execute(update(ReviewCard).values(reps=ReviewCard.reps + 1))
        other.commit()
        other.close()
        return change

    monkeypatch.setattr(review, "plan_attempt", raced)
    r = _submit(client, 1)
    assert r.status_code == 201
    assert r.get_json()["review"]["reps"] == 3  # 1 (first attempt) + 1 (the other) + 1 (this one)
    with app.app_context():
        session = get_db(app).Session()
        assert session.scalars(select(ReviewCard.reps)).all() == [3]
        session.close()


def test_a_card_rated_before_the_write_equals_one_rated_inside_it(app):
    """The card an attempt stores is the same whether it is rated before the writer's turn
    (plan_attempt, then write) or inside the transaction through the ORM (record_attempt)."""
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import select

    from quizapp.storage.db import get_db
    from quizapp.learners import ensure_learner
    from quizapp.study import review
    from quizapp.storage.models import Attempt, ReviewCard
    from quizapp.services.attempts import grade_answers
    from quizapp.services.questions import get_question

    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    # b right (a left out), a miss, both right, b wrong: each rating path of an attempt
    answers = [{"b": "no"}, {"a": "0", "b": "no"}, {"a": "0.5", "b": "no"}, {"b": "yes"}]
    cards = {}
    with app.app_context():
        session = get_db(app).Session()
        question = get_question(session, testing.SAMPLE_QUESTION["id"])
        for learner, planned in (("p" * 32, True), ("o" * 32, False)):
            ensure_learner(session, learner)
            session.commit()
            for k, given in enumerate(answers):
                verdicts = grade_answers(question["data"], 5, given)
                attempt = Attempt(id=f"{learner[:1]}{k:031d}", learner_id=learner, question_id=question["id"],
                                  question_version_id=question["version_id"], variant=5, answers=given,
                                  verdicts=verdicts, score=sum(v["score"] * v["weight"] for v in verdicts.values()),
                                  max_score=sum(v["weight"] for v in verdicts.values()),
                                  counted=any(v["counted"] for v in verdicts.values()), lang="en",
                                  created_at=start + timedelta(hours=k))
                session.add(attempt)
                session.flush()
                at = start + timedelta(hours=k, minutes=1)
                if planned:
                    change = review.plan_attempt(session, attempt, question["data"], at)
                    change.write(session)
                else:
                    review.record_attempt(session, attempt, question["data"], at, commit=False)
                session.commit()
            row = session.scalars(select(ReviewCard).where(ReviewCard.learner_id == learner)).one()
            cards[planned] = {c: getattr(row, c) for c in review._CARD_CHANGES}
        session.close()
    assert cards[True] == cards[False]
    assert cards[True]["reps"] == len(answers) and cards[True]["lapses"] >= 1  # the misses counted


def test_a_submit_reads_the_learners_summary_not_the_history(app, client, monkeypatch):
    from quizapp.study import policy

    assert _submit(client, 1).status_code == 201  # an earlier attempt: the history is not empty
    reads = []
    original = policy._timeline

    def counted(*args, **kwargs):
        reads.append(args[1:])
        return original(*args, **kwargs)

    monkeypatch.setattr(policy, "_timeline", counted)
    r = _submit(client, 1)
    assert r.status_code == 201
    assert r.get_json()["practice"]["tries_used"] == 2  # the second try on the question, counted once
    assert reads == []  # the stored summary (quizapp.study.summary) stands for the history


def _statements_of_submit(app, client) -> tuple[object, list[str]]:
    """A submit's response and the SQL statements it ran (transaction control left out), whitespace folded."""
    import quiz_testing as testing

    from quizapp.storage.db import get_db

    with testing.sql_seen(get_db(app).engine) as seen:
        r = _submit(client, 1)
    return r, seen.statements


def test_a_submit_by_a_returning_learner_runs_a_bounded_number_of_statements(app, client):
    assert _submit(client, 1).status_code == 201  # a history, a learner row and a review card exist
    r, statements = _statements_of_submit(app, client)
    assert r.status_code == 201 and r.get_json()["review"]["reps"] == 2
    # the published set's fingerprint (when a recheck is due), the learner's summary of the question, the
    # events after it and the card, read before the write;
    # then only the attempt, the summary and the card are written (the learner's row exists: the summary
    # shows it). The version's document is not read again, and no earlier attempt is read at all.
    assert len(statements) <= 7, statements
    assert not any(s.startswith("SELECT") and "FROM attempts" in s for s in statements), statements
    assert not any("FROM question_versions" in s and "count(" not in s for s in statements), statements
    writes = [" ".join(s.split()[:3]) for s in statements if s.startswith(("INSERT", "UPDATE"))]
    assert sorted(writes) == ["INSERT INTO attempts", "UPDATE practice_summaries SET", "UPDATE review_cards SET"], \
        statements
    assert not any(s.startswith(("SAVEPOINT", "RELEASE")) for s in statements), statements


def test_a_submit_reads_only_the_statuses_of_earlier_verdicts(app, client):
    """The history a submit replays when it rebuilds the learner's summary (here: deleted, as after an
    account merge) holds, of each earlier attempt's verdicts, only the graded parts' statuses, taken out by
    the database. The tries still count as before."""
    from quizapp.storage.db import get_db
    from quizapp.storage.models import PracticeSummary

    for variant in (1, 2):
        assert _submit(client, variant).status_code == 201
    with app.app_context(), get_db(app).Session() as session:
        session.query(PracticeSummary).delete()
        session.commit()
    r, statements = _statements_of_submit(app, client)
    history = [s for s in statements if s.startswith("SELECT") and "FROM attempts" in s]
    assert len(history) == 1, statements
    columns = [c.strip() for c in history[0].split(" FROM ", 1)[0].removeprefix("SELECT").split(",")]
    assert "attempts.verdicts" not in columns and "verdicts" in history[0], history
    assert r.status_code == 201 and r.get_json()["practice"]["tries_used"] == 3


def test_a_first_submit_reads_nothing_of_the_learner_it_makes_up(app, client, monkeypatch):
    """No cookie: the learner id is made up for the request, so there is no history and no card to read.
    The learner, the attempt and the new card are written; a second submit with the cookie then finds the
    card and the history that the first one stored."""
    from quizapp.storage.db import get_db

    monkeypatch.setattr(question_cache, "clock", lambda: 1_000.0)  # however slow the machine, no recheck is due
    with app.app_context():  # the published rows are in the worker's cache, as after its first request
        with get_db(app).Session() as session:
            question_cache.published_rows(session)
    first, statements = _statements_of_submit(app, client)
    assert first.status_code == 201 and first.get_json()["review"]["reps"] == 1
    assert first.get_json()["practice"]["tries_used"] == 1
    # Nothing read: the published rows were checked a moment ago (the fingerprint is not read again within
    # PUBLISHED_SET_RECHECK), and a made-up learner has no history.
    assert not [s for s in statements if s.startswith("SELECT")], statements
    writes = [" ".join(s.split()[:3]) for s in statements if s.startswith(("INSERT", "UPDATE"))]
    assert writes[:2] == ["INSERT INTO learners", "INSERT INTO attempts"], statements
    assert sorted(writes[2:]) == ["INSERT INTO practice_summaries", "INSERT INTO review_cards"], statements
    second = _submit(client, 1).get_json()
    assert second["review"]["reps"] == 2 and second["practice"]["tries_used"] == 2


def _submits_in_one_group(app, clients_variants: list) -> list:
    """Post the submits from one thread each while the test holds the process's writer turn: the first
    becomes the writer, the others queue behind it and are committed together."""
    import os
    import threading

    from quizapp.storage import group_commit
    from quizapp.storage.db import get_db

    path = os.path.abspath(get_db(app).engine.url.database)
    queue, turn = group_commit._queue_for(path), turns._turn_for(path)
    out: list = [None] * len(clients_variants)

    def run(i: int) -> None:
        client, variant = clients_variants[i]
        out[i] = _submit(client, variant)

    turn.acquire()
    try:
        first = threading.Thread(target=run, args=(0,))
        first.start()
        testing.until_queued(queue, lambda: queue.writing)
        rest = [threading.Thread(target=run, args=(i,)) for i in range(1, len(clients_variants))]
        for t in rest:
            t.start()
        testing.until_queued(queue, lambda: len(queue.waiting) == len(rest) + 1)  # the first too: it takes them all with the turn
    finally:
        turn.release()
    for t in [first, *rest]:
        t.join(60)
    return out


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_attempts_committed_together_on_one_card_are_each_rated(app, client):
    """Two attempts of one learner on one question wait in the same group, both rated against the card as
    it was: the cards' statement for the group cannot apply both, so the group is written one attempt at a
    time and the second is rated again against the first's card. Other learners' attempts in the group
    keep theirs."""
    from sqlalchemy import select

    from quizapp.storage.db import get_db
    from quizapp.storage.models import Attempt, ReviewCard

    assert _submit(client, 1).status_code == 201  # the learner's card exists: each attempt updates it
    others = [app.test_client() for _ in range(2)]
    out = _submits_in_one_group(app, [(others[0], 1), (client, 2), (others[1], 3), (client, 4)])
    assert [r.status_code for r in out] == [201] * 4
    assert sorted(r.get_json()["review"]["reps"] for r in (out[1], out[3])) == [2, 3]
    with app.app_context():
        session = get_db(app).Session()
        assert session.query(Attempt).count() == 5
        reps = sorted(session.scalars(select(ReviewCard.reps)))
        session.close()
    assert reps == [1, 1, 3]  # each new learner's first review, and this learner's three


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_new_cards_of_a_group_are_one_statement(app):
    import quiz_testing as testing

    from quizapp.storage.db import get_db

    with testing.sql_seen(get_db(app).engine) as seen:
        out = _submits_in_one_group(app, [(app.test_client(), v) for v in range(1, 6)])
    assert [r.status_code for r in out] == [201] * 5
    assert all(r.get_json()["review"]["reps"] == 1 for r in out)
    runs = [testing.values_groups(s) for s in seen.statements if s.startswith("INSERT INTO review_cards")]
    assert runs == [5]  # the first and the four that queued while it waited for the turn


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_summaries_of_a_group_are_one_statement_and_stay_true(app, client):
    """The learners' summaries of a group go to SQLite as one statement, like their cards; two attempts of
    one learner in one group cannot both update the row they read, and the row left matches the attempts
    stored (or is gone, to be rebuilt by the next submit)."""
    import quiz_testing as testing
    from sqlalchemy import func, select

    from quizapp.storage.db import get_db
    from quizapp.storage.models import Attempt, PracticeSummary

    with testing.sql_seen(get_db(app).engine) as seen:
        out = _submits_in_one_group(app, [(app.test_client(), v) for v in range(1, 6)])
    assert [r.status_code for r in out] == [201] * 5
    runs = [testing.values_groups(s) for s in seen.statements if s.startswith("INSERT INTO practice_summaries")]
    assert runs == [5]

    first = _submit(client, 1)
    assert first.status_code == 201
    out = _submits_in_one_group(app, [(client, 2), (client, 4)])
    assert [r.status_code for r in out] == [201] * 2
    with app.app_context():
        session = get_db(app).Session()
        learner = session.get(Attempt, first.get_json()["attempt_id"]).learner_id
        stored = session.scalar(select(func.count()).select_from(Attempt).where(Attempt.learner_id == learner))
        rows = session.scalars(select(PracticeSummary.attempts).where(PracticeSummary.learner_id == learner)).all()
        session.close()
    assert stored == 3
    assert rows in ([], [3])


@pytest.mark.sqlite_only(reason="counts the pages a group commit appends to SQLite's write-ahead log")
def test_a_group_of_new_learners_writes_few_pages(app):
    """Ids begin with the time (quizapp.storage.ids: version-7 UUIDs), so the rows of one group commit go to
    the same last pages of each index keyed by an id: the pages the group adds to the WAL do not grow by a
    page per row per index (7 indexes are keyed by a learner or attempt id) once the tables are large."""
    import os

    from quizapp.storage.db import get_db
    from quizapp.storage.ids import random_hex_id

    engine = get_db(app).engine
    path = os.path.abspath(engine.url.database)
    assert _submit(app.test_client(), 1).status_code == 201
    first = app.test_client()
    assert _submit(first, 2).status_code == 201
    with engine.begin() as conn:  # thousands of earlier learners, each with an attempt: indexes of many pages
        row = conn.exec_driver_sql("SELECT question_id, question_version_id, answers, verdicts FROM attempts").first()
        older = [random_hex_id() for _ in range(3000)]
        conn.exec_driver_sql("INSERT INTO learners (id, role, created_at) VALUES (?, 'learner', '2026-01-01')",
                             [(i,) for i in older])
        conn.exec_driver_sql(
            "INSERT INTO attempts (id, learner_id, question_id, question_version_id, variant, answers, verdicts,"
            " score, max_score, counted, lang, created_at) VALUES (?, ?, ?, ?, 1, ?, ?, 0, 2, 1, 'en', '2026-01-01')",
            [(random_hex_id(), i, *row) for i in older])
        page = conn.exec_driver_sql("PRAGMA page_size").scalar()
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    learners = 40
    out = _submits_in_one_group(app, [(app.test_client(), v) for v in range(learners)])
    assert [r.status_code for r in out] == [201] * learners
    frames = os.path.getsize(path + "-wal") / (page + 24)
    assert 0 < frames <= 2 * learners  # random (version-4) ids: about 4 per learner
