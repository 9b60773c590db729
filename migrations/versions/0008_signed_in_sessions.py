"""Signed-in sessions kept on the server: signing out deletes the row, so a copy of the session cookie stops
working (quizapp.auth.identity).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signed_in_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE",
                                name=op.f("fk_signed_in_sessions_learner_id_learners")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signed_in_sessions")),
    )
    op.create_index(op.f("ix_signed_in_sessions_learner_id"), "signed_in_sessions", ["learner_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_signed_in_sessions_learner_id"), table_name="signed_in_sessions")
    op.drop_table("signed_in_sessions")
