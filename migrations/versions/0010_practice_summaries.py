"""Per (learner, question) summary of the attempt policy's history (quizapp.study.summary): a submit
reads one row, not the learner's whole history of the question. Existing learners get theirs rebuilt by
their next submit (an absent row is read from the history once).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "practice_summaries",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_event_id", sa.Integer(), nullable=False),
        sa.Column("last_short_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE",
                                name=op.f("fk_practice_summaries_learner_id_learners")),
        sa.ForeignKeyConstraint(["question_id"], ["questions.id"], ondelete="CASCADE",
                                name=op.f("fk_practice_summaries_question_id_questions")),
        sa.PrimaryKeyConstraint("learner_id", "question_id", name=op.f("pk_practice_summaries")),
    )


def downgrade() -> None:
    op.drop_table("practice_summaries")
