"""Authoring commands (registered by ``quizapp.cli``)::

    quizapp create-author USERNAME [--password-stdin]   an author account (password prompted, or from stdin)
    quizapp create-token USERNAME [--name NAME]         a new API token: printed once, stored hashed
    quizapp list-tokens USERNAME                        id, prefix, name, created, last used, revoked
    quizapp revoke-token TOKEN_ID                       revoke a token (idempotent)
    quizapp import DIR [--draft] [--seeds 20]           validate + self-test + import question files
    quizapp regrade ATTEMPT_ID                          re-grade an attempt against its own version
    quizapp selftest-stored [--seeds 20] [--all]        self-test (and store) every published version
                                                        without a report, e.g. questions loaded from files
"""

from __future__ import annotations

import json
import sys

import click
from flask.cli import with_appcontext
from . import import_export, regrade, versions
from ..auth import AccountError, create_author, create_token, list_tokens, revoke_token
from ..auth.accounts import iso, learner_for_username
from ..storage.cli_schema import ready_session
from ..errors import ServiceError


@click.command("create-author")
@click.argument("username")
@click.option("--password-stdin", is_flag=True, help="read the password from the first line of stdin")
@click.option("--role", type=click.Choice(["author", "learner"]), default="author", show_default=True)
@with_appcontext
def create_author_command(username: str, password_stdin: bool, role: str) -> None:
    """Create an author account (a learners row with role author plus a password)."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("password", hide_input=True, confirmation_prompt=True)
    try:
        learner = create_author(ready_session(), username, password, role=role)
    except AccountError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"created {role} {username} (id {learner.id})")


@click.command("create-token")
@click.argument("username")
@click.option("--name", default=None, help="a label for the token")
@with_appcontext
def create_token_command(username: str, name: str | None) -> None:
    """Create an API token for USERNAME; it is printed once and only its hash is kept."""
    learner = learner_for_username(ready_session(), username)
    if learner is None:
        raise click.ClickException(f"no account {username!r}")
    try:
        row, token = create_token(ready_session(), learner.id, name)
    except AccountError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"token id {row.id} for {username} (shown once; keep it secret):", err=True)
    click.echo(token)


@click.command("list-tokens")
@click.argument("username")
@with_appcontext
def list_tokens_command(username: str) -> None:
    """List USERNAME's tokens (never the tokens themselves)."""
    learner = learner_for_username(ready_session(), username)
    if learner is None:
        raise click.ClickException(f"no account {username!r}")
    for row in list_tokens(ready_session(), learner.id):
        click.echo(f"{row.id}\t{row.prefix}…\t{row.name or '-'}\tcreated {iso(row.created_at)}\t"
                   f"last used {iso(row.last_used_at) or 'never'}\t"
                   f"{'revoked ' + iso(row.revoked_at) if row.revoked_at else 'active'}")


@click.command("revoke-token")
@click.argument("token_id", type=int)
@with_appcontext
def revoke_token_command(token_id: int) -> None:
    """Revoke API token TOKEN_ID."""
    try:
        revoke_token(ready_session(), token_id)
    except AccountError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"token {token_id} revoked")


@click.command("import")
@click.argument("directory", type=click.Path(exists=True))
@click.option("--draft", is_flag=True, help="store new/changed questions as drafts instead of publishing")
@click.option("--seeds", default=20, show_default=True, type=click.IntRange(20, 10_000))
@with_appcontext
def import_command(directory: str, draft: bool, seeds: int) -> None:
    """Import question files (the layout of questions/): every file is validated and self-tested first;
    any failure imports nothing."""
    try:
        summary = import_export.import_files(ready_session(), import_export.files_from_dir(directory), None,
                                       publish_now=not draft, seeds=seeds)
    except ServiceError as exc:
        for f in exc.extra.get("failures", []):
            click.echo(f"  {f.get('file')}: part {f.get('part')} seed {f.get('seed')}: {f.get('reason')}", err=True)
        raise click.ClickException(exc.message) from None
    click.echo(f"import: {len(summary['added'])} added, {len(summary['updated'])} updated, "
               f"{len(summary['unchanged'])} unchanged")


@click.command("regrade")
@click.argument("attempt_id")
@with_appcontext
def regrade_command(attempt_id: str) -> None:
    """Re-grade a stored attempt against the version it answered; exit 1 if a verdict differs."""
    try:
        result = regrade.regrade(ready_session(), attempt_id)
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(json.dumps(result, ensure_ascii=False, indent=2))
    if not result["matches"]:
        sys.exit(1)


@click.command("selftest-stored")
@click.option("--seeds", default=20, show_default=True, type=click.IntRange(20, 1000))
@click.option("--all", "all_versions", is_flag=True, help="drafts and retired versions too")
@with_appcontext
def selftest_stored_command(seeds: int, all_versions: bool) -> None:
    """Self-test every stored version that has no report yet and store the report; exit 1 on a failure."""
    rows = versions.selftest_unchecked(ready_session(), seeds=seeds, only_published=not all_versions)
    for r in rows:
        click.echo(f"{r['question_id']} v{r['version']}: {'ok' if r['ok'] else str(r['failures']) + ' failure(s)'}")
    click.echo(f"self-tested {len(rows)} version(s)")
    if any(not r["ok"] for r in rows):
        sys.exit(1)


COMMANDS = (create_author_command, create_token_command, list_tokens_command, revoke_token_command,
            import_command, regrade_command, selftest_stored_command)
