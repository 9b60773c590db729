"""Run the Alembic migrations in ``migrations/`` against the app's database."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask import Flask

from .db import get_db


def alembic_config(app: Flask) -> Config:
    path = Path(app.config["MIGRATIONS_PATH"])
    cfg = Config(str(path / "alembic.ini"))
    cfg.set_main_option("script_location", str(path))
    cfg.set_main_option("sqlalchemy.url", app.config["DATABASE_URL"].replace("%", "%%"))
    return cfg


def current_revision(app: Flask) -> str | None:
    with get_db(app).engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision(app: Flask) -> str | None:
    return ScriptDirectory.from_config(alembic_config(app)).get_current_head()


def _run(app: Flask, fn, target: str) -> None:
    cfg = alembic_config(app)
    with get_db(app).engine.connect() as conn:
        cfg.attributes["connection"] = conn
        fn(cfg, target)
        conn.commit()


def upgrade(app: Flask, target: str = "head") -> tuple[str | None, str | None]:
    """Upgrade to ``target``; returns (revision before, revision after)."""
    before = current_revision(app)
    _run(app, command.upgrade, target)
    return before, current_revision(app)


def downgrade(app: Flask, target: str = "base") -> tuple[str | None, str | None]:
    before = current_revision(app)
    _run(app, command.downgrade, target)
    return before, current_revision(app)
