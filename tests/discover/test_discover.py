"""Finding questions on SQLite (FTS5): search in both languages, filters, status, next / previous /
random, continue where the learner left off, and the pages."""

from __future__ import annotations

import cases
from sqlalchemy import select

from quizapp.storage.db import get_db
from quizapp.discover import text as search_text, walk
from quizapp.learners import ensure_learner
from quizapp.storage.models import Attempt, QuestionVersion


def test_search_in_english_and_chinese(discover_app):
    cases.check_search(discover_app.test_client())


def test_bad_filters_are_422_naming_the_field(discover_app):
    cases.check_errors(discover_app.test_client())


def test_next_previous_random_follow_the_find_filter(discover_app):
    cases.check_walk(discover_app.test_client())


def test_query_tokens_carry_no_engine_syntax():
    terms = search_text.terms('clip" OR NEAR(x) 优势*')
    assert terms == [("clip",), ("or",), ("near",), ("x",), ("优", "势")]
    assert search_text.fts5_query(terms) == '"clip"* AND "or"* AND "near"* AND "x"* AND "优 势"'
    assert search_text.tsquery(terms) == "clip:* & or:* & near:* & x:* & (优 <-> 势)"
    assert search_text.terms("x " * 500) == [("x",)]
    assert len(search_text.terms(" ".join(f"w{i}" for i in range(50)))) == search_text.QUERY_MAX_TERMS


def _attempt(session, learner: str, qid: str, score: float, when: int) -> None:
    from datetime import datetime, timedelta, timezone

    version = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid,
                                                            QuestionVersion.status == "published")).one()
    session.add(Attempt(learner_id=learner, question_id=qid, question_version_id=version.id, variant=1,
                        answers={}, verdicts={}, score=score, max_score=2.0, counted=True, lang="en",
                        created_at=datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=when)))
    session.flush()


def test_status_and_continue(discover_app):
    with discover_app.app_context():
        session = get_db(discover_app).Session()
        learner = "0" * 8 + "-0000-4000-8000-" + "0" * 12
        ensure_learner(session, learner)
        assert walk.continue_place(session, learner).qid == "disc-clip-by-hand"  # nothing tried: the first
        _attempt(session, learner, "disc-clip-by-hand", 2.0, 1)
        _attempt(session, learner, "disc-kl-coins", 0.0, 2)
        status, recent = walk.statuses(session, learner)
        assert status == {"disc-clip-by-hand": "mastered", "disc-kl-coins": "wrong"}
        assert recent == ["disc-kl-coins", "disc-clip-by-hand"]
        tags = {"kl-divergence": {}, "clipping": {}, "advantages": {}}
        assert [r["id"] for r in walk.matching(session, {"status": "wrong"}, learner, tags)] == ["disc-kl-coins"]
        assert [r["id"] for r in walk.matching(session, {"status": "mastered"}, learner, tags)] == ["disc-clip-by-hand"]
        assert walk.continue_place(session, learner).qid == "disc-kl-coins"  # the latest, not yet right
        _attempt(session, learner, "disc-kl-coins", 2.0, 3)
        # the latest is mastered: the next question after it (bank order L1, L2) that is not
        assert walk.continue_place(session, learner).qid == "disc-group-baseline"
        for qid in ("disc-group-baseline", "disc-kl-tokens"):
            _attempt(session, learner, qid, 2.0, 4)
        assert walk.continue_place(session, learner).qid is None
        session.close()


def test_find_page_lists_and_names_tags_in_the_language(discover_app):
    client = discover_app.test_client()
    page = client.get("/find", query_string={"q": "硬币", "lang": "zh"}).get_data(as_text=True)
    assert 'data-qid="disc-kl-coins"' in page and 'data-qid="disc-kl-tokens"' not in page
    assert "KL 散度" in page and ">KL divergence<" not in page
    assert client.get("/find", query_string={"level": "L7"}).status_code == 422
    resp = client.get("/continue")  # nothing answered yet: a page says so (tests/discover/test_continue.py)
    assert resp.status_code == 200 and 'data-reason="first"' in resp.get_data(as_text=True)


def test_search_index_follows_published_versions(discover_app):
    from quizapp.services import questions as qsvc

    client = discover_app.test_client()
    assert cases.ids(client, q="硬币") == ["disc-kl-coins"]
    with discover_app.app_context():
        session = get_db(discover_app).Session()
        qsvc.retire_question(session, "disc-kl-coins")
        session.commit()
        session.close()
    assert cases.ids(client, q="硬币") == []
