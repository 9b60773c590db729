"""The service on a real (throwaway) PostgreSQL: load-bank twice, the API through the test client, and
16 threads posting attempts to a live waitress server."""

from click.testing import CliRunner
from flask.cli import ScriptInfo
from sqlalchemy import func, select

from checkers.bank import question_files
import quiz_testing as testing
from quizapp.cli import cli
from quizapp.config import PROJECT_ROOT
from quizapp.storage.db import get_db
from quizapp.storage.models import Attempt, Learner, Question, QuestionVersion


def test_pg_load_bank_twice_no_duplicates(pg_url, tmp_path):
    from quizapp import create_app

    env = {"DATABASE_URL": pg_url, "SECRET_KEY": "pg-test"}
    bank = PROJECT_ROOT / "questions"
    n = len(list(question_files(bank)))
    assert n > 0

    apps = []

    def make_app():  # the CLI's own factory, remembered so that its pool can be closed afterwards
        apps.append(create_app())
        return apps[-1]

    def run(*args):
        result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False,
                                    obj=ScriptInfo(create_app=make_app, load_dotenv_defaults=False))
        for made in apps:
            get_db(made).dispose()
        assert result.exit_code == 0, result.output
        return result.output

    assert "migrated empty" in run("db-upgrade")
    assert f"{n} added, 0 updated, 0 unchanged" in run("load-bank", "--path", str(bank))
    assert f"0 added, 0 updated, {n} unchanged" in run("load-bank", "--path", str(bank))

    app = create_app({"DATABASE_URL": pg_url, "SECRET_KEY": "pg-test"})
    with get_db(app).Session() as session:
        assert session.scalar(select(func.count()).select_from(Question)) == n
        assert session.scalar(select(func.count()).select_from(QuestionVersion)) == n
        per_question = session.execute(select(QuestionVersion.question_id, func.count())
                                       .where(QuestionVersion.status == "published")
                                       .group_by(QuestionVersion.question_id)).all()
        assert len(per_question) == n and {c for _, c in per_question} == {1}
        version = session.scalars(select(QuestionVersion).limit(1)).one()
        assert isinstance(version.data, dict) and version.data["id"] == version.question_id
        assert version.created_at.tzinfo is not None  # timestamptz round trip
    get_db(app).dispose()


def test_pg_api_list_get_submit_read_back(pg_app):
    client = pg_app.test_client()
    qs = client.get("/api/v1/questions").get_json()["questions"]
    assert [q["id"] for q in qs] == ["svc-sample-double"]
    assert client.get("/api/v1/questions?tag=service-test&level=L1").get_json()["questions"] == qs
    q = client.get("/api/v1/questions/svc-sample-double?variant=7").get_json()
    assert q["variant"] == 7 and [p["id"] for p in q["parts"]] == ["a", "b"]
    zh = client.get("/api/v1/questions/svc-sample-double?variant=7&lang=zh").get_json()
    assert zh["title"] == "加倍"  # non-ASCII through JSONB

    resp = client.post("/api/v1/questions/svc-sample-double/attempts",
                       json={"variant": 7, "answers": {"a": "0", "b": "no"}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    created = resp.get_json()
    assert resp.headers["Location"] == f"/api/v1/attempts/{created['attempt_id']}"
    back = client.get(resp.headers["Location"])
    assert back.status_code == 200, back.get_data(as_text=True)
    stored = back.get_json()
    assert stored["attempt_id"] == created["attempt_id"]
    assert stored["parts"]["b"]["status"] == "correct" and stored["parts"]["a"]["status"] == "incorrect"
    assert stored["score"] == created["score"] == 1
    assert client.get("/api/v1/attempts/" + "0" * 32).status_code == 404

    with get_db(pg_app).Session() as session:
        attempt = session.get(Attempt, created["attempt_id"])
        assert attempt.counted is True and attempt.answers == {"a": "0", "b": "no"}
        assert attempt.created_at.tzinfo is not None
        assert session.get(Learner, attempt.learner_id) is not None


N = 16


def test_pg_16_concurrent_attempts(pg_app):
    with testing.serve_in_thread(pg_app, threads=8) as url:
        results = testing.post_attempts_concurrently(url, N, timeout=60, join_timeout=90)

    failures = [r for r in results if r is None or r[0] != 201]
    assert not failures, failures[:3]
    ids = {r[1]["attempt_id"] for r in results}
    assert len(ids) == N
    with get_db(pg_app).Session() as session:
        stored = dict(session.execute(select(Attempt.id, Attempt.variant)).all())
        learners = session.scalar(select(func.count()).select_from(Learner))
    assert set(stored) == ids
    assert sorted(stored.values()) == list(range(N))
    assert learners == N  # one anonymous learner per cookie-less request, none lost or doubled


def test_pg_unstorable_text_is_422_not_500(pg_app):
    """JSONB refuses NUL characters and unpaired surrogates: such answers are refused up front."""
    client = pg_app.test_client()
    url = "/api/v1/questions/svc-sample-double/attempts"
    for body, field in [('{"variant": 1, "answers": {"a": "1\\u0000", "b": "no"}}', "answers.a"),
                        ('{"variant": 1, "answers": {"a": "1", "b": "no\\u0000"}}', "answers.b"),
                        ('{"variant": 1, "answers": {"a": "\\ud800", "b": "no"}}', "answers.a")]:
        resp = client.post(url, data=body, content_type="application/json")
        assert resp.status_code == 422, (body, resp.get_data(as_text=True))
        assert resp.get_json()["error"]["field"] == field
    ok = client.post(url, json={"variant": 1, "answers": {"a": "1e308", "b": "no"}})
    assert ok.status_code == 201, ok.get_data(as_text=True)
    with get_db(pg_app).Session() as session:
        assert session.scalar(select(func.count()).select_from(Attempt)) == 1
