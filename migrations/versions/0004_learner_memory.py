"""Learner memory: learner accounts (email + password), FSRS review cards, attempts by learner and time.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "learner_accounts",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE",
                                name=op.f("fk_learner_accounts_learner_id_learners")),
        sa.PrimaryKeyConstraint("learner_id", name=op.f("pk_learner_accounts")),
        sa.UniqueConstraint("email", name=op.f("uq_learner_accounts_email")),
    )
    op.create_table(
        "review_cards",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_review", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reps", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("last_rating", sa.Integer(), nullable=True),
        sa.Column("pending_attempt_id", sa.String(length=32), nullable=True),
        sa.Column("pending_rating", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE",
                                name=op.f("fk_review_cards_learner_id_learners")),
        sa.ForeignKeyConstraint(["question_id"], ["questions.id"], ondelete="CASCADE",
                                name=op.f("fk_review_cards_question_id_questions")),
        sa.ForeignKeyConstraint(["pending_attempt_id"], ["attempts.id"], ondelete="SET NULL",
                                name=op.f("fk_review_cards_pending_attempt_id_attempts")),
        sa.PrimaryKeyConstraint("learner_id", "question_id", name=op.f("pk_review_cards")),
    )
    op.create_index("ix_review_cards_learner_due", "review_cards", ["learner_id", "due"])
    op.create_index("ix_attempts_learner_created", "attempts", ["learner_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_attempts_learner_created", table_name="attempts")
    op.drop_index("ix_review_cards_learner_due", table_name="review_cards")
    op.drop_table("review_cards")
    op.drop_table("learner_accounts")
