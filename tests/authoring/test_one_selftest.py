"""The self-test lives in one place: ``quizapp selftest`` on a question file and the authoring tool saving,
publishing or importing the same text report the same failures (same records, same seeds, same places),
and ``python -m checkers.bank selftest`` prints the same reasons."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from checkers.bank import dump_question
from checkers.bank.__main__ import main as bank_main
from quizapp.authoring.validation import MIN_SEEDS
from quizapp.cli import cli

from tests.authoring.conftest import author_question, bearer

YAML = {"Content-Type": "application/yaml"}


def _broken() -> dict:
    """Three kinds of failure at once: an expression that does not parse, a numeric known mistake equal to
    the answer, a choice known mistake equal to the answer."""
    data = author_question("auth-one-selftest")
    data["parts"][0]["mistakes"].append({"expr": "2*p +", "note": "dangling-plus",
                                         "feedback": {"en": "Dangling.", "zh": "悬空的加号。"}})
    data["parts"][0]["mistakes"].append({"expr": "p + p", "note": "same-as-correct",
                                         "feedback": {"en": "Same.", "zh": "相同。"}})
    data["parts"][1]["mistakes"].append({"answer": "no", "note": "choice-same",
                                         "feedback": {"en": "Same.", "zh": "相同。"}})
    return data


def _write(root: Path, data: dict) -> tuple[Path, str]:
    text = dump_question(data)
    path = root / data["level"] / f"{data['id']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path, text


def _cli_report(tmp_path: Path, root: Path, seeds: int) -> dict:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}", "SECRET_KEY": "cli-test"}
    result = CliRunner().invoke(cli, ["selftest", "--path", str(root), "--seeds", str(seeds), "--json"], env=env)
    assert result.exit_code == 1, result.output  # a failing question fails the command
    reports = json.loads(result.output)
    assert len(reports) == 1
    return reports[0]


def test_cli_and_publishing_report_the_same_failures(tmp_path, authoring_client, authoring_creds, capsys):
    data = _broken()
    path, text = _write(tmp_path / "bank", data)
    cli = _cli_report(tmp_path, tmp_path / "bank", MIN_SEEDS)
    assert cli["question"] == data["id"] and cli["ok"] is False and cli["seeds"] == MIN_SEEDS
    failures = cli["failures"]
    # what the broken file must show, whichever path reads it
    by_check = {(f["part"], f["check"]) for f in failures}
    assert {("a", "expression"), ("a", "known-mistake"), ("b", "known-mistake")} <= by_check, failures
    same = [f for f in failures if "equals the correct answer" in f["reason"]]
    assert {f["part"] for f in same} == {"a", "b"} and all(f["seeds"] == list(range(MIN_SEEDS)) for f in same)
    assert all(f.get("line") for f in failures if f.get("field")), failures  # placed in the file's text

    h = bearer(authoring_creds["author_token"])
    r = authoring_client.post("/api/v1/questions", data=text, headers={**h, **YAML})
    assert r.status_code == 201, r.get_json()
    saved = r.get_json()["selftest"]
    assert saved["failures"] == failures and saved["seeds"] == cli["seeds"] and saved["checks"] == cli["checks"]

    r = authoring_client.post(f"/api/v1/questions/{data['id']}/publish", headers=h)
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "selftest_failed"
    assert r.get_json()["error"]["failures"] == failures

    r = authoring_client.post("/api/v1/import", json={"files": [{"path": "L1/one.yaml", "content": text}]},
                              headers=h)
    assert r.status_code == 422
    assert r.get_json()["error"]["failures"] == [dict(f, file="L1/one.yaml") for f in failures]

    # the engine's own command runs the same report: every reason shows up in its output
    assert bank_main(["selftest", "--seeds", str(MIN_SEEDS), str(path)]) == 1
    out = capsys.readouterr().out
    assert all(f["reason"] in out for f in failures)


def test_a_schema_error_reads_the_same_in_the_cli_and_the_editor(tmp_path, authoring_client, authoring_creds):
    data = author_question("auth-one-schema")
    data["parts"][1]["kind"] = "telepathy"
    _, text = _write(tmp_path / "bank", data)
    cli = _cli_report(tmp_path, tmp_path / "bank", 3)
    assert cli["ok"] is False and cli["checks"] == 0  # a question off the format is not self-tested
    assert [(f["part"], f["check"]) for f in cli["failures"]] == [("b", "schema")]

    r = authoring_client.post("/api/v1/questions", data=text, headers={**bearer(authoring_creds["author_token"]),
                                                                        **YAML})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_question"
    assert r.get_json()["error"]["failures"] == cli["failures"]


def test_the_cli_keeps_the_seeds_it_is_given_while_saving_never_tests_fewer_than_the_minimum(tmp_path):
    from quizapp.authoring.validation import selftest_report

    data = _broken()
    _write(tmp_path / "bank", data)
    assert _cli_report(tmp_path, tmp_path / "bank", 3)["seeds"] == 3
    assert selftest_report(data, 3)["seeds"] == MIN_SEEDS
