"""Practice events: hints shown and solutions asked for, per learner, question and variant.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "practice_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("variant", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("part_id", sa.String(length=32), nullable=True),
        sa.Column("hint_index", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('hint', 'solution')", name=op.f("ck_practice_events_kind")),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE",
                                name=op.f("fk_practice_events_learner_id_learners")),
        sa.ForeignKeyConstraint(["question_id"], ["questions.id"], ondelete="CASCADE",
                                name=op.f("fk_practice_events_question_id_questions")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_practice_events")),
    )
    op.create_index("ix_practice_events_learner_question_variant", "practice_events",
                    ["learner_id", "question_id", "variant"])


def downgrade() -> None:
    op.drop_index("ix_practice_events_learner_question_variant", table_name="practice_events")
    op.drop_table("practice_events")
