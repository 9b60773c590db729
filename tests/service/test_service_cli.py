"""CLI commands: db-upgrade, load-bank (idempotent), export, selftest; serve twice on one database."""

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest
from click.testing import CliRunner

import quiz_testing as testing
from quizapp.cli import cli


@pytest.fixture
def env(tmp_path):
    return {"DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}", "SECRET_KEY": "cli-test"}


def run(env, *args):
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result


def test_db_upgrade_twice(env):
    first = run(env, "db-upgrade")
    assert first.exit_code == 0, first.output
    assert "migrated empty" in first.output
    second = run(env, "db-upgrade")
    assert second.exit_code == 0 and "nothing to migrate" in second.output


def test_load_bank_twice_then_export(env, tmp_path):
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question(),
                              testing.sample_question(id="svc-sample-two", level="L2"))
    assert run(env, "db-upgrade").exit_code == 0
    first = run(env, "load-bank", "--path", str(bank))
    assert first.exit_code == 0, first.output
    assert "2 added, 0 updated, 0 unchanged" in first.output
    second = run(env, "load-bank", "--path", str(bank))
    assert "0 added, 0 updated, 2 unchanged" in second.output

    changed = testing.sample_question(tags=["changed"])
    testing.write_bank(bank, changed)
    third = run(env, "load-bank", "--path", str(bank))
    assert "0 added, 1 updated, 1 unchanged" in third.output

    out = tmp_path / "out"
    exported = run(env, "export", "--out", str(out))
    assert exported.exit_code == 0 and "exported 2" in exported.output
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml"))
    assert files == ["L1/svc-sample-double.yaml", "L2/svc-sample-two.yaml"]
    for rel in files:
        assert (out / rel).read_text() == (bank / rel).read_text()


def test_load_bank_skips_a_broken_file_and_says_so(env, tmp_path):
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
    (bank / "L1" / "broken.yaml").write_text("id: broken\nlevel: L1\n")
    run(env, "db-upgrade")
    result = CliRunner().invoke(cli, ["load-bank", "--path", str(bank)], env=env)
    assert result.exit_code != 0 and "1 skipped" in result.output and "broken.yaml" in result.output
    assert "1 added" in result.output  # the valid file still loads


def test_selftest_command(env, tmp_path):
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
    result = run(env, "selftest", "--path", str(bank), "--seeds", "3")
    assert result.exit_code == 0, result.output
    assert "1 ok, 0 failed" in result.output


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(env, bank, port):
    """Start ``quizapp serve`` and wait for it by its own word, not by a clock: it prints "serving on" once
    its socket is bound and listening, so the first request after that line is queued, not refused.
    Returns (process, question listing, output read so far)."""
    cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--port", str(port), "--bank", str(bank)]
    proc = subprocess.Popen(cmd, env={**os.environ, **env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    seen = []
    for line in proc.stdout:  # ends (the loop falls through) if the server exits before listening
        seen.append(line)
        if line.startswith("serving on http://"):
            break
    else:
        proc.wait()
        raise AssertionError("".join(seen))
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/questions", timeout=60) as r:
        return proc, json.load(r), "".join(seen)


def _stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


@pytest.mark.slow
def test_serve_twice_is_idempotent(env, tmp_path):
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
    port = _free_port()
    proc, listing, started = _serve(env, bank, port)
    try:
        assert [q["id"] for q in listing["questions"]] == ["svc-sample-double"]
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/questions/svc-sample-double/attempts",
                                     data=json.dumps({"variant": 1, "answers": {"b": "no"}}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            attempt_id = json.load(r)["attempt_id"]
            cookie = r.headers["Set-Cookie"].split(";")[0]  # the learner cookie: only its owner reads an attempt
    finally:
        first_out = started + _stop(proc)
    assert "migrated empty" in first_out and "1 added" in first_out
    proc, listing, started = _serve(env, bank, port)
    try:
        assert [q["id"] for q in listing["questions"]] == ["svc-sample-double"]
        read = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/attempts/{attempt_id}",
                                      headers={"Cookie": cookie})
        with urllib.request.urlopen(read, timeout=10) as r:
            assert json.load(r)["attempt_id"] == attempt_id
    finally:
        second_out = started + _stop(proc)
    assert "nothing to migrate" in second_out and "0 added, 0 updated, 1 unchanged" in second_out
