"""Command line: ``quizapp <command>`` (Flask CLI commands on the app; also ``flask --app quizapp ...``).

    quizapp db-upgrade                 migrate the database (DATABASE_URL) to the newest schema
    quizapp load-bank [--path DIR]     load question files: unchanged -> nothing, changed -> new version
    quizapp selftest [--seeds 20] [--json]   check every question file as publishing does (schema, self-test)
    quizapp export --out DIR           write the published bank as question files
    quizapp serve [--host --port]      migrate, load the bank, serve (gunicorn workers; waitress elsewhere)
    quizapp import DIR                 validate, self-test and import question files (all or nothing)
    quizapp create-author / create-token / revoke-token / list-tokens / regrade   (quizapp/authoring/cli.py)
"""

from __future__ import annotations

import json
import os
import sys

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, with_appcontext
from sqlalchemy.engine import make_url

from checkers.bank.report import DEFAULT_SEEDS, format_report

from .authoring.cli import COMMANDS as _AUTHORING_COMMANDS  # author accounts, tokens, import, regrade
from .authoring.validation import file_reports
from .config import DEFAULT_THREADS, MIN_WRITE_THREADS, WRITES_IN_FLIGHT, default_write_threads
from .storage.cli_schema import ready_session
from .ops.assets import BUILD_HINT, missing_assets
from .storage.migrate import downgrade, upgrade
from .services.questions import export_bank, load_bank_dir


def _upgrade() -> None:
    before, after = upgrade(current_app._get_current_object())  # type: ignore[attr-defined]
    if before == after:
        click.echo(f"database: at {after}, nothing to migrate")
    else:
        click.echo(f"database: migrated {before or 'empty'} -> {after}")


def _load(path: str, *, strict: bool = True) -> None:
    try:
        summary = load_bank_dir(ready_session(), path)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(summary.text())
    if summary.errors and strict:
        raise click.ClickException(f"bank not fully loaded: {len(summary.errors)} file(s) skipped")


@click.command("db-upgrade")
@with_appcontext
def db_upgrade_command() -> None:
    """Create or upgrade the database schema (Alembic, idempotent)."""
    _upgrade()


@click.command("db-downgrade")
@click.option("--to", "target", default="-1", show_default=True, help="revision (base = empty database)")
@with_appcontext
def db_downgrade_command(target: str) -> None:
    """Downgrade the database schema."""
    before, after = downgrade(current_app._get_current_object(), target)  # type: ignore[attr-defined]
    click.echo(f"database: {before} -> {after or 'base'}")


def _default_bank() -> str:
    return current_app.config["QUIZ_BANK_PATH"]


@click.command("load-bank")
@click.option("--path", default=None, help="question folder (default QUIZ_BANK_PATH or questions/)")
@with_appcontext
def load_bank_command(path: str | None) -> None:
    """Load the question files into the database (idempotent)."""
    _load(path or _default_bank())


@click.command("selftest")
@click.option("--path", default=None, help="question folder or file (default QUIZ_BANK_PATH or questions/)")
@click.option("--seeds", default=DEFAULT_SEEDS, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--json", "as_json", is_flag=True, help="print the reports as one JSON list instead")
@with_appcontext
def selftest_command(path: str | None, seeds: int, as_json: bool) -> None:
    """Self-test every question file: its own answers grade right for every seed. The report of each file
    is the one publishing it would give (quizapp.authoring.validation.file_reports)."""
    reports = file_reports(path or _default_bank(), seeds)
    failed = sum(1 for r in reports if not r["ok"])
    if as_json:
        click.echo(json.dumps(reports, ensure_ascii=False, indent=1))
    else:
        for report in reports:
            click.echo(format_report(report))
        click.echo(f"selftest: {len(reports) - failed} ok, {failed} failed ({seeds} seeds each)")
    if failed:
        sys.exit(1)


@click.command("export")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="folder to write")
@with_appcontext
def export_command(out: str) -> None:
    """Write every published question as a question file (the layout of questions/)."""
    written = export_bank(ready_session(), out)
    click.echo(f"exported {len(written)} question(s) to {out}")


@click.command("serve")
@click.option("--host", default=None, help="default HOST or 127.0.0.1")
@click.option("--port", default=None, type=int, help="default PORT or 5000")
@click.option("--workers", default=None, type=click.IntRange(1, 256),
              help="worker processes (gunicorn; default WEB_WORKERS or the number of cores)")
@click.option("--threads", default=DEFAULT_THREADS, show_default=True, type=click.IntRange(1, 64), help="threads per worker")
@click.option("--write-threads", default=None, type=click.IntRange(0, 64),
              help=f"threads per worker for POST/PUT/PATCH/DELETE requests (gunicorn; default {WRITES_IN_FLIGHT} "
                   f"/ workers, at least {MIN_WRITE_THREADS}; 0: they share --threads)")
@click.option("--pin-workers/--no-pin-workers", default=None,
              help="hold each worker to a CPU of its own (gunicorn, Linux; default: when there are as many "
                   "workers as CPUs)")
@click.option("--server", "server_name", type=click.Choice(["auto", "gunicorn", "waitress"]), default="auto",
              show_default=True, help="auto: gunicorn where it runs (Linux), else waitress")
@click.option("--bank", "bank_path", default=None, help="question folder (default QUIZ_BANK_PATH)")
@click.option("--no-load", is_flag=True, help="do not load the bank before serving")
@with_appcontext
def serve_command(host: str | None, port: int | None, workers: int | None, threads: int, write_threads: int | None,
                  pin_workers: bool | None, server_name: str, bank_path: str | None, no_load: bool) -> None:
    """Migrate, load the bank, then serve (gunicorn worker processes, or waitress)."""
    from . import serving  # local: only `quizapp serve` needs the server runners; every app loads this module

    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    host = host or os.environ.get("HOST") or "127.0.0.1"
    port = port or int(os.environ.get("PORT") or 5000)
    _upgrade()
    if not no_load:
        _load(bank_path or _default_bank(), strict=False)  # a broken file must not keep the others offline
    for item in missing_assets():
        click.echo(f"warning: {item['path']} is missing: {item['effect']} ({BUILD_HINT})", err=True)
    label = _safe_url(app.config["DATABASE_URL"])

    def announce(line: str) -> None:
        click.echo(line)
        sys.stdout.flush()

    if server_name == "gunicorn" or (server_name == "auto" and serving.gunicorn_available()):
        workers = workers or int(os.environ.get("WEB_WORKERS") or 0) or serving.default_workers()
        if write_threads is None:
            write_threads = default_write_threads(workers)
        serving.serve_gunicorn(app, host=host, port=port, workers=workers, threads=threads,
                               write_threads=write_threads, announce=announce, db_label=label,
                               app_factory=_create_app,
                               pin_cpus=serving.cpus.cpus_to_pin(workers, pin_workers))
    else:
        serving.serve_waitress(app, host=host, port=port, threads=threads, announce=announce, db_label=label)


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001
        return "(unparseable URL)"


COMMANDS = (db_upgrade_command, db_downgrade_command, load_bank_command, selftest_command, export_command,
            serve_command)


def _authoring_commands() -> tuple:
    return _AUTHORING_COMMANDS


def register_commands(app: Flask) -> None:
    for command in COMMANDS + _authoring_commands():
        app.cli.add_command(command)


def _create_app() -> Flask:
    from . import create_app  # local: the package imports this module before it defines create_app
    return create_app()


cli = FlaskGroup(create_app=_create_app, add_default_commands=True, load_dotenv=False,
                 help="The RLHF quiz service.")


def main() -> None:
    cli.main(prog_name="quizapp")


if __name__ == "__main__":  # python -m quizapp.cli
    main()
