"""Alembic on a real (throwaway) PostgreSQL: upgrade to head on an empty database matches the models,
downgrade to base leaves nothing behind, upgrade again; the one-published-version partial index holds."""

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.storage.models import Question, QuestionVersion


def test_pg_upgrade_matches_models_downgrade_and_upgrade_again(tmp_path, pg_url):
    app = testing.make_app(tmp_path, migrate=False, DATABASE_URL=pg_url)
    assert get_db(app).engine.dialect.name == "postgresql"

    def on_head(conn):
        # JSON columns are JSONB on PostgreSQL; the partial index really is partial.
        types = {row[0]: row[1] for row in conn.execute(text(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'attempts'"))}
        assert types["answers"] == "jsonb" and types["counted"] == "boolean"
        assert types["created_at"] == "timestamp with time zone"
        indexdef = conn.execute(text("SELECT indexdef FROM pg_indexes "
                                     "WHERE indexname = 'ix_question_versions_one_published'")).scalar_one()
        assert "UNIQUE" in indexdef and "WHERE" in indexdef and "published" in indexdef

    testing.assert_migration_round_trip(app, on_head=on_head)


def test_pg_one_published_version_per_question(pg_app):
    Session = get_db(pg_app).Session
    with Session() as session:
        published = session.scalars(select(QuestionVersion).where(
            QuestionVersion.question_id == "svc-sample-double")).one()
        assert published.status == "published"
        data = dict(published.data)

    def add(number, status):
        with Session() as session:
            session.add(QuestionVersion(question_id="svc-sample-double", number=number, status=status,
                                        content_hash=f"h{number}", level="L1", data=data))
            session.commit()

    add(2, "draft")  # drafts and retired versions are not limited
    add(3, "retired")
    with pytest.raises(IntegrityError) as err:
        add(4, "published")
    assert "ix_question_versions_one_published" in str(err.value)
    with Session() as session:  # another question may have its own published version
        session.add(Question(id="svc-other"))
        session.add(QuestionVersion(question_id="svc-other", number=1, status="published", content_hash="x",
                                    level="L1", data=data))
        session.commit()
        counts = dict(session.execute(text(
            "SELECT question_id, count(*) FROM question_versions WHERE status = 'published' "
            "GROUP BY question_id")).all())
    assert counts == {"svc-sample-double": 1, "svc-other": 1}
