"""Authoring: author credentials, API tokens, stored self-test reports of question versions.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSONDoc = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "author_credentials",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("username", sa.String(length=80), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"],
                                name=op.f("fk_author_credentials_learner_id_learners"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", name=op.f("pk_author_credentials")),
        sa.UniqueConstraint("username", name=op.f("uq_author_credentials_username")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], name=op.f("fk_api_tokens_learner_id_learners"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_index(op.f("ix_api_tokens_learner_id"), "api_tokens", ["learner_id"])
    op.create_table(
        "version_checks",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("seeds", sa.Integer(), nullable=False),
        sa.Column("failures", JSONDoc, nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["version_id"], ["question_versions.id"],
                                name=op.f("fk_version_checks_version_id_question_versions"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_version_checks")),
    )


def downgrade() -> None:
    op.drop_table("version_checks")
    op.drop_index(op.f("ix_api_tokens_learner_id"), table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_table("author_credentials")
