"""The database a command works on, ready for it: every command that reads or writes the database works on a
new database too.

A new (empty) database is migrated to the newest schema first, as ``quizapp serve`` does; a database at an
older revision is left alone and the command stops with the one line to run (``quizapp db-upgrade``), since
upgrading a shared database is a deliberate step (docs/deploy.md) rather than a side effect of, say, creating
an author.
"""

from __future__ import annotations

import click
from flask import current_app, g
from sqlalchemy.orm import Session

from .db import get_session
from .migrate import current_revision, head_revision, upgrade


def ready_session() -> Session:
    """The request-less session of a CLI command, with the schema at the newest revision (checked once per
    command: a command that opens its session twice reads the revision once)."""
    if g.get("_quiz_schema_ready"):
        return get_session()
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    current, head = current_revision(app), head_revision(app)
    if current is None:
        upgrade(app)
        click.echo(f"database: new, migrated to {head}", err=True)
    elif current != head:
        raise click.ClickException(f"the database schema is at {current}, this version needs {head}: "
                                   "run `quizapp db-upgrade` first")
    g._quiz_schema_ready = True
    return get_session()
