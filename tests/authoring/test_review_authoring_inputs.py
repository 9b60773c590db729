"""Review findings on authored input: YAML alias bombs, corrupt zip members, import size limits."""

from __future__ import annotations

import io
import zipfile

import yaml

from checkers.budget import count_calls
from quizapp.authoring import import_export
from tests.authoring.conftest import author_question, bearer


def _bomb(levels: int = 7, width: int = 10) -> str:
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return "id: bomb\nlevel: L1\n" + "\n".join(lines) + f"\ntags: *l{levels - 1}\n"


def test_yaml_alias_bomb_is_refused(authoring_client, authoring_creds):
    # Refused before it is expanded, measured as work (calls made in this thread by the test client's
    # request): the bomb names 10**7 strings, yet the request costs far fewer calls than one per string,
    # and a bomb ten times bigger costs about the same.
    headers = {**bearer(authoring_creds["author_token"]), "Content-Type": "application/yaml"}
    authoring_client.post("/api/v1/questions", data="id: loop\ntags: &a [*a]\n", headers=headers)  # warm
    r, calls = count_calls(authoring_client.post, "/api/v1/questions", data=_bomb(), headers=headers)
    assert r.status_code == 400, r.get_data(as_text=True)[:300]
    assert r.get_json()["error"]["code"] == "malformed_yaml"
    assert calls <= 2_000_000, calls
    bigger, more_calls = count_calls(authoring_client.post, "/api/v1/questions", data=_bomb(levels=8),
                                     headers=headers)
    assert bigger.status_code == 400 and bigger.get_json()["error"]["code"] == "malformed_yaml"
    assert more_calls <= 2 * calls, (calls, more_calls)


def test_self_referencing_yaml_is_refused(authoring_client, authoring_creds):
    r = authoring_client.post("/api/v1/questions", data="id: loop\ntags: &a [*a]\n",
                              headers={**bearer(authoring_creds["author_token"]),
                                       "Content-Type": "application/yaml"})
    assert r.status_code == 400
    assert r.get_json()["error"]["code"] == "malformed_yaml"


def test_yaml_bomb_in_import_is_refused(authoring_client, authoring_creds):
    r = authoring_client.post("/api/v1/import", json={"files": [{"path": "L1/bomb.yaml", "content": _bomb()}]},
                              headers=bearer(authoring_creds["author_token"]))
    assert r.status_code == 422
    failures = r.get_json()["error"]["failures"]
    assert any("expands to more than" in f["reason"] for f in failures)


def test_corrupt_zip_member_is_422_not_500(authoring_client, authoring_creds):
    buf = io.BytesIO()
    text = yaml.safe_dump(author_question("auth-zip-crc")).encode()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("L1/auth-zip-crc.yaml", text)
    raw = bytearray(buf.getvalue())
    at = raw.find(text)
    raw[at + 5] ^= 0xFF  # the stored bytes no longer match their CRC-32
    r = authoring_client.post("/api/v1/import", data=bytes(raw),
                              headers={**bearer(authoring_creds["author_token"]),
                                       "Content-Type": "application/zip"})
    assert r.status_code == 422, r.get_data(as_text=True)[:300]
    assert r.get_json()["error"]["code"] == "bad_archive"


def test_json_import_has_the_zip_file_count_limit(authoring_client, authoring_creds, monkeypatch):
    monkeypatch.setattr(import_export, "MAX_IMPORT_FILES", 3)
    files = [{"path": f"L1/q{i}.yaml", "content": "id: x\n"} for i in range(4)]
    r = authoring_client.post("/api/v1/import", json={"files": files},
                              headers=bearer(authoring_creds["author_token"]))
    assert r.status_code == 422
    assert r.get_json()["error"]["code"] == "too_many_files"
