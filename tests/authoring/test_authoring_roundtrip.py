"""Export -> import into a fresh database -> the identical bank (same content hashes, same files), through
the CLI (export --out / import DIR) and through the API (json and zip)."""

from __future__ import annotations

from pathlib import Path

import quiz_testing as testing
from quizapp.storage.db import get_db


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _bank_app(tmp_path, name):
    """An app holding the sample, a web-style question and one authored through the API."""
    (tmp_path / name).mkdir()
    return testing.make_app(tmp_path / name)


def _fill(app, authoring_question):
    from quizapp.auth import create_author, create_token
    testing.load_sample(app)
    s = get_db(app).Session()
    author = create_author(s, "exporter", "exporter-password")
    _, token = create_token(s, author.id)
    s.close()
    c = app.test_client()
    h = {"Authorization": f"Bearer {token}"}
    q = authoring_question("auth-rt-authored", level="L2",
                           prompt={"en": "Unicode: KL(p‖q) ≥ 0, $\\frac{1}{2}$\n\nSecond *line*.", "zh": "中文"})
    assert c.post("/api/v1/questions", json=q, headers=h).status_code == 201
    assert c.post("/api/v1/questions/auth-rt-authored/publish", headers=h).status_code == 200
    return token


def test_authoring_cli_export_import_roundtrip(tmp_path, authoring_question):
    a = _bank_app(tmp_path, "a")
    _fill(a, authoring_question)
    out1, out2 = tmp_path / "out1", tmp_path / "out2"
    r = a.test_cli_runner().invoke(args=["export", "--out", str(out1)])
    assert r.exit_code == 0, r.output
    files1 = _tree(out1)
    assert "L2/auth-rt-authored.yaml" in files1 and len(files1) == 2

    b = _bank_app(tmp_path, "b")
    r = b.test_cli_runner().invoke(args=["import", str(out1)])
    assert r.exit_code == 0, r.output
    assert "2 added" in r.output
    r = b.test_cli_runner().invoke(args=["export", "--out", str(out2)])
    assert r.exit_code == 0
    assert _tree(out2) == files1
    # a second import changes nothing
    r = b.test_cli_runner().invoke(args=["import", str(out1)])
    assert "0 added, 0 updated, 2 unchanged" in r.output

    from quizapp.services.questions import list_questions
    sa, sb = get_db(a).Session(), get_db(b).Session()
    ha = {q["id"]: q["content_hash"] for q in list_questions(sa)}
    hb = {q["id"]: q["content_hash"] for q in list_questions(sb)}
    sa.close(), sb.close()
    assert ha == hb and len(ha) == 2
    get_db(a).dispose(), get_db(b).dispose()


def test_authoring_cli_import_refuses_a_broken_file(tmp_path, authoring_question):
    from checkers.bank import dump_question
    src = tmp_path / "bank"
    testing.write_bank(src, authoring_question("auth-rt-good"))
    bad = authoring_question("auth-rt-bad")
    bad["parts"][0]["expected"] = {"expr": "2*p +"}
    (src / "L1" / "auth-rt-bad.yaml").write_text(dump_question(bad), encoding="utf-8")
    app = _bank_app(tmp_path, "c")
    r = app.test_cli_runner().invoke(args=["import", str(src)])
    assert r.exit_code != 0
    assert "L1/auth-rt-bad.yaml: part a seed 0" in r.output
    s = get_db(app).Session()
    from quizapp.services.questions import list_questions
    assert list_questions(s) == []  # all or nothing
    s.close()
    get_db(app).dispose()


def _one_file_per_kind(bank: Path, dest: Path) -> Path:
    """A copy of the real bank's files that holds every answer kind and every level, one file per new kind or level
    in path order (an import self-tests each file: the whole bank would cost minutes per import)."""
    import shutil

    from checkers.bank import load_question_file

    seen: set[str] = set()
    for path in sorted(bank.rglob("*.yaml")):
        if path.name == "tags.yml" or path.parent == bank:
            continue
        q = load_question_file(path)
        new = {p["kind"] for p in q["parts"]} | {q["level"]}
        if new - seen:
            seen |= new
            target = dest / path.relative_to(bank)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    return dest


def test_authoring_api_export_import_roundtrip_with_real_bank(tmp_path, authoring_question):
    """Questions of the seed bank (questions/), every answer kind among them, round-trip through the API: json
    and zip."""
    from checkers.bank import load_question_file
    from checkers.kinds import kind_names

    a = _bank_app(tmp_path, "d")
    from quizapp.services.questions import load_bank_dir
    subset = _one_file_per_kind(Path(a.config["QUIZ_BANK_PATH"]), tmp_path / "bank-subset")
    s = get_db(a).Session()
    summary = load_bank_dir(s, subset)
    s.close()
    assert not summary.errors
    kinds = {p["kind"] for f in subset.rglob("*.yaml") for p in load_question_file(f)["parts"]}
    assert set(kind_names()) <= kinds
    token = _fill(a, authoring_question)
    h = {"Authorization": f"Bearer {token}"}
    ca = a.test_client()
    exported = ca.get("/api/v1/export?format=json", headers=h).get_json()["files"]
    assert len(exported) >= 3
    zipped = ca.get("/api/v1/export", headers=h)
    assert zipped.mimetype == "application/zip"
    one = ca.get("/api/v1/export?id=auth-rt-authored", headers=h)
    assert one.mimetype == "application/yaml" and one.get_data(as_text=True) == next(
        f["content"] for f in exported if f["path"] == "L2/auth-rt-authored.yaml")

    for kind in ("json", "zip"):
        b = _bank_app(tmp_path, f"e-{kind}")
        from quizapp.auth import create_author, create_token
        sb = get_db(b).Session()
        _, tb = create_token(sb, create_author(sb, "importer", "importer-password").id)
        sb.close()
        cb = b.test_client()
        hb = {"Authorization": f"Bearer {tb}"}
        if kind == "json":
            r = cb.post("/api/v1/import", json={"files": [{"path": f["path"], "content": f["content"]}
                                                          for f in exported]}, headers=hb)
        else:
            r = cb.post("/api/v1/import", data=zipped.get_data(), headers={**hb, "Content-Type": "application/zip"})
        assert r.status_code == 200, r.get_data(as_text=True)[:2000]
        assert len(r.get_json()["added"]) == len(exported)
        again = cb.get("/api/v1/export?format=json", headers=hb).get_json()["files"]
        assert again == exported  # same paths, same bytes, same content hashes
        get_db(b).dispose()
    get_db(a).dispose()


def test_reimporting_unchanged_files_self_tests_only_what_changed(authoring_client, authoring_creds,
                                                                    authoring_question, monkeypatch):
    import yaml

    from quizapp.authoring import import_export

    tested = []
    original = import_export.selftest_report

    def counted(data, seeds=import_export.MIN_SEEDS, text=None):
        tested.append(data["id"])
        return original(data, seeds, text)

    monkeypatch.setattr(import_export, "selftest_report", counted)
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    first = authoring_question("auth-reimport-a")
    second = authoring_question("auth-reimport-b")
    files = [{"path": f"L1/{q['id']}.yaml", "content": yaml.safe_dump(q, allow_unicode=True)} for q in (first, second)]
    r = authoring_client.post("/api/v1/import", json={"files": files}, headers=h)
    assert r.status_code == 200 and sorted(r.get_json()["added"]) == ["auth-reimport-a", "auth-reimport-b"]
    assert sorted(tested) == ["auth-reimport-a", "auth-reimport-b"]

    tested.clear()
    changed = dict(second, tags=[*second["tags"], "changed"])
    files[1]["content"] = yaml.safe_dump(changed, allow_unicode=True)
    r = authoring_client.post("/api/v1/import", json={"files": files}, headers=h)
    body = r.get_json()
    assert r.status_code == 200 and body["unchanged"] == ["auth-reimport-a"] and body["updated"] == ["auth-reimport-b"]
    assert tested == ["auth-reimport-b"]  # the unchanged file goes live as it is: not tested again
