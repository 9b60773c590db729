"""Mock interviews kept on the server: the cookie names the interview, the database holds its state
(quizapp.mock.store), so an older cookie cannot reopen what was answered.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mock_interviews",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("state", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE",
                                name=op.f("fk_mock_interviews_learner_id_learners")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mock_interviews")),
    )
    op.create_index(op.f("ix_mock_interviews_learner_id"), "mock_interviews", ["learner_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_mock_interviews_learner_id"), table_name="mock_interviews")
    op.drop_table("mock_interviews")
