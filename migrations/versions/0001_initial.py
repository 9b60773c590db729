"""Initial schema: learners, questions, question versions, attempts.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSONDoc = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "learners",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("role", sa.String(length=16), server_default="learner", nullable=False),
        sa.Column("display_name", sa.String(length=120), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('learner', 'author')", name=op.f("ck_learners_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_learners")),
    )
    op.create_table(
        "questions",
        sa.Column("id", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=36), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["learners.id"], name=op.f("fk_questions_created_by_learners"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_questions")),
    )
    op.create_table(
        "question_versions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("level", sa.String(length=8), nullable=False),
        sa.Column("ref", sa.String(length=32), nullable=True),
        sa.Column("data", JSONDoc, nullable=False),
        sa.Column("source", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=36), nullable=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('draft', 'published', 'retired')", name=op.f("ck_question_versions_status")),
        sa.ForeignKeyConstraint(["created_by"], ["learners.id"],
                                name=op.f("fk_question_versions_created_by_learners"), ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["question_id"], ["questions.id"],
                                name=op.f("fk_question_versions_question_id_questions"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_question_versions")),
        sa.UniqueConstraint("question_id", "number", name=op.f("uq_question_versions_question_id")),
    )
    op.create_index(op.f("ix_question_versions_content_hash"), "question_versions", ["content_hash"])
    op.create_index("ix_question_versions_one_published", "question_versions", ["question_id"], unique=True,
                    sqlite_where=sa.text("status = 'published'"),
                    postgresql_where=sa.text("status = 'published'"))
    op.create_index("ix_question_versions_status_level", "question_versions", ["status", "level"])
    op.create_table(
        "attempts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("question_version_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.Integer(), nullable=False),
        sa.Column("answers", JSONDoc, nullable=False),
        sa.Column("verdicts", JSONDoc, nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("max_score", sa.Float(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], name=op.f("fk_attempts_learner_id_learners"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["question_id"], ["questions.id"], name=op.f("fk_attempts_question_id_questions"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["question_version_id"], ["question_versions.id"],
                                name=op.f("fk_attempts_question_version_id_question_versions"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attempts")),
    )
    op.create_index("ix_attempts_learner_question_created", "attempts",
                    ["learner_id", "question_id", "created_at"])
    op.create_index(op.f("ix_attempts_question_version_id"), "attempts", ["question_version_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_attempts_question_version_id"), table_name="attempts")
    op.drop_index("ix_attempts_learner_question_created", table_name="attempts")
    op.drop_table("attempts")
    op.drop_index("ix_question_versions_status_level", table_name="question_versions")
    op.drop_index("ix_question_versions_one_published", table_name="question_versions")
    op.drop_index(op.f("ix_question_versions_content_hash"), table_name="question_versions")
    op.drop_table("question_versions")
    op.drop_table("questions")
    op.drop_table("learners")
