"""Every command that touches the database works on a new one: it is migrated first (as ``serve`` does); a
database at an older revision is left alone and the command says in one line what to run."""

import pytest
from click.testing import CliRunner

import quiz_testing as testing
from quizapp.cli import cli

PASSWORD = "a long enough pass phrase 9"


@pytest.fixture
def env(tmp_path):
    return {"DATABASE_URL": f"sqlite:///{tmp_path / 'new.sqlite3'}", "SECRET_KEY": "cli-new-db"}


def run(env, *args, stdin=None):
    return CliRunner().invoke(cli, list(args), env=env, input=stdin, catch_exceptions=False)


@pytest.mark.parametrize("args, stdin, said", [
    (("create-author", "first-author", "--password-stdin"), PASSWORD + "\n", "created author first-author"),
    (("list-tokens", "nobody"), None, "no account"),
    (("export", "--out", "{tmp}/out"), None, "exported 0 question(s)"),
])
def test_a_command_on_a_new_database_migrates_it_first(env, tmp_path, args, stdin, said):
    args = tuple(a.replace("{tmp}", str(tmp_path)) for a in args)
    result = CliRunner().invoke(cli, list(args), env=env, input=stdin)
    assert "no such table" not in result.output
    assert "database: new, migrated to" in result.output
    assert said in result.output, result.output
    # The schema is complete afterwards: a second command finds it at head and migrates nothing.
    again = run(env, "db-upgrade")
    assert "nothing to migrate" in again.output


def test_load_bank_on_a_new_database(env, tmp_path):
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
    result = run(env, "load-bank", "--path", str(bank))
    assert result.exit_code == 0, result.output
    assert "1 added" in result.output


def test_an_older_schema_is_not_upgraded_behind_the_operators_back(env):
    assert run(env, "db-upgrade").exit_code == 0
    assert run(env, "db-downgrade", "--to", "-1").exit_code == 0
    result = CliRunner().invoke(cli, ["create-author", "late-author", "--password-stdin"], env=env,
                                input=PASSWORD + "\n")
    assert result.exit_code != 0
    assert "run `quizapp db-upgrade` first" in result.output
