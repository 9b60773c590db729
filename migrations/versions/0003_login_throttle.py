"""Login throttling: failed password logins per username and client address.

Revision ID: 0003
Revises: 0002
Create Date: 2025-01-03
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("username", sa.String(length=255), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
    )
    op.create_index(op.f("ix_login_failures_created_at"), "login_failures", ["created_at"])
    op.create_index("ix_login_failures_username_created", "login_failures", ["username", "created_at"])
    op.create_index("ix_login_failures_address_created", "login_failures", ["address", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_login_failures_address_created", table_name="login_failures")
    op.drop_index("ix_login_failures_username_created", table_name="login_failures")
    op.drop_index(op.f("ix_login_failures_created_at"), table_name="login_failures")
    op.drop_table("login_failures")
