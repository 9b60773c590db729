"""Versions, bank sync, listing, last results."""

import pytest

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.errors import NotFound, ValidationError
from quizapp.storage.models import Attempt, QuestionVersion
from quizapp.services import attempts, questions


@pytest.fixture
def session(app):
    with app.app_context():
        s = get_db(app).Session()
        yield s
        s.close()


def test_sync_is_idempotent_and_versions_changes(session):
    assert session.query(QuestionVersion).count() == 1
    again = questions.sync_bank(session, [("test", testing.sample_question())])
    assert again.unchanged == ["svc-sample-double"] and not again.added and not again.updated
    changed = testing.sample_question(tags=["kl", "service-test", "new-tag"])
    summary = questions.sync_bank(session, [("test", changed)])
    assert summary.updated == ["svc-sample-double"]
    versions = session.query(QuestionVersion).order_by(QuestionVersion.number).all()
    assert [(v.number, v.status) for v in versions] == [(1, "retired"), (2, "published")]
    row = questions.get_question(session, "svc-sample-double")
    assert row["version"] == 2 and "new-tag" in row["tags"] and row["version_id"] == versions[1].id
    assert set(row) >= {"id", "ref", "level", "tags", "title", "data", "version_id"}
    assert row["title"] == {"en": "Double it", "zh": "加倍"}


def test_list_questions_shape_and_filters(session):
    other = testing.sample_question(id="svc-sample-other", level="L2", tags=["dpo"])
    questions.sync_bank(session, [("test", other)])
    rows = questions.list_questions(session)
    assert [r["id"] for r in rows] == ["svc-sample-double", "svc-sample-other"]
    assert [r["id"] for r in questions.list_questions(session, level="L2")] == ["svc-sample-other"]
    assert [r["id"] for r in questions.list_questions(session, tag="dpo")] == ["svc-sample-other"]
    assert rows[0]["data"]["parts"][0]["id"] == "a"


def test_retired_question_is_hidden_but_attempts_remain(session):
    result = attempts.submit_attempt(session, "svc-sample-double", 1, {"b": "no"}, "a" * 32, "en")
    assert questions.retire_question(session, "svc-sample-double")
    session.commit()
    with pytest.raises(NotFound):
        questions.get_question(session, "svc-sample-double")
    assert questions.list_questions(session) == []
    assert attempts.get_attempt(session, result["attempt_id"])["parts"]["b"]["status"] == "correct"


def test_old_attempt_keeps_its_version(session):
    first = attempts.submit_attempt(session, "svc-sample-double", 3, {"b": "no"}, "b" * 32, "en")
    changed = testing.sample_question()
    changed["parts"][1]["correct"] = "yes"
    changed["parts"][1]["mistakes"] = [{"answer": "no", "note": "x", "feedback": {"en": "x", "zh": "x"}}]
    questions.sync_bank(session, [("test", changed)])
    stored = attempts.get_attempt(session, first["attempt_id"])
    assert stored["version_id"] == first["version_id"] and stored["parts"]["b"]["status"] == "correct"
    second = attempts.submit_attempt(session, "svc-sample-double", 3, {"b": "no"}, "b" * 32, "en")
    assert second["version_id"] != first["version_id"] and second["parts"]["b"]["status"] == "incorrect"


def test_last_results(session):
    lid = "c" * 32
    assert attempts.last_results(session, lid) == {}
    attempts.submit_attempt(session, "svc-sample-double", 3, {"b": "yes"}, lid, "en")
    attempts.submit_attempt(session, "svc-sample-double", 3, {"b": "no"}, lid, "en")
    attempts.submit_attempt(session, "svc-sample-double", 3, {"a": "junk"}, lid, "en")  # not counted
    res = attempts.last_results(session, lid)
    assert set(res) == {"svc-sample-double"}
    assert res["svc-sample-double"]["score"] == 1 and res["svc-sample-double"]["max_score"] == 2
    assert res["svc-sample-double"]["created_at"].endswith("Z")
    assert session.query(Attempt).filter_by(learner_id=lid).count() == 3
    assert attempts.last_results(session, "d" * 32) == {}


def test_submit_validation(session):
    with pytest.raises(NotFound):
        attempts.submit_attempt(session, "missing", 0, {}, "e" * 32, "en")
    with pytest.raises(ValidationError) as err:
        attempts.submit_attempt(session, "svc-sample-double", 1_000_000, {}, "e" * 32, "en")
    assert err.value.field == "variant"
    assert session.query(Attempt).count() == 0


def test_export_writes_bank_files(session, tmp_path):
    from checkers.bank import load_bank
    out = tmp_path / "export"
    written = questions.export_bank(session, out)
    assert [p.relative_to(out).as_posix() for p in written] == ["L1/svc-sample-double.yaml"]
    assert load_bank(out) == [testing.sample_question()]


def test_a_restart_with_an_unchanged_bank_validates_nothing_again(session, tmp_path, monkeypatch):
    import yaml

    validated = []
    original = questions.validate_question

    def counted(data, path=None):
        validated.append(data.get("id") if isinstance(data, dict) else None)
        return original(data, path)

    monkeypatch.setattr(questions, "validate_question", counted)
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question(id="svc-files-a"),
                              testing.sample_question(id="svc-files-b", tags=["dpo"]))
    first = questions.load_bank_dir(session, bank)
    assert sorted(first.added) == ["svc-files-a", "svc-files-b"] and sorted(validated) == sorted(first.added)

    validated.clear()
    again = questions.load_bank_dir(session, bank)
    assert sorted(again.unchanged) == ["svc-files-a", "svc-files-b"] and validated == []

    # a changed file is validated again (and a broken change is refused, the published version kept)
    path = next(p for p in bank.rglob("*.yaml") if "svc-files-a" in p.read_text())
    data = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**data, "level": "L9"}, allow_unicode=True))
    broken = questions.load_bank_dir(session, bank)
    assert validated == ["svc-files-a"] and broken.errors and "level" in broken.errors[0]
    assert questions.get_question(session, "svc-files-a")["level"] == testing.SAMPLE_QUESTION["level"]

    # the same content under another path is validated there (a question's folder must match its level)
    validated.clear()
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    moved = path.parent / "elsewhere" / path.name
    moved.parent.mkdir()
    path.rename(moved)
    assert questions.load_bank_dir(session, bank).unchanged and validated == ["svc-files-a"]
