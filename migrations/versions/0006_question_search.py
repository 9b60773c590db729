"""Question search: a full-text index over titles, prompts and tag names in both languages.

SQLite: an FTS5 table (rowid = the question version's id). PostgreSQL: a table with a generated
``tsvector`` (the ``simple`` configuration: no stemming, so English and Chinese are treated alike) and a GIN
index. Both hold derived text only, rebuilt from the published versions (``quizapp.discover.index``); the
models do not describe them (``quizapp.discover.index.autogen_include_name`` hides them from autogenerate).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""
from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("CREATE VIRTUAL TABLE question_search USING fts5(question_id UNINDEXED, body)")
        return
    op.execute(
        "CREATE TABLE question_search ("
        " version_id INTEGER PRIMARY KEY REFERENCES question_versions (id) ON DELETE CASCADE,"
        " question_id VARCHAR(80) NOT NULL,"
        " body TEXT NOT NULL,"
        " tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)")
    op.execute("CREATE INDEX ix_question_search_tsv ON question_search USING gin (tsv)")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS question_search")
