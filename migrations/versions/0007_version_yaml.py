"""Question versions keep the author's YAML text as written (comments, key order, quoting), so the editor
shows it and exports give it back byte for byte.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("question_versions") as batch:
        batch.add_column(sa.Column("yaml_text", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("question_versions") as batch:
        batch.drop_column("yaml_text")
