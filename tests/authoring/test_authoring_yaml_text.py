"""The author's YAML is stored as written: comments, key order, quoting and block scalars come back byte for
byte from the editor and the export; exports are stable; errors name the line and column they come from."""

from __future__ import annotations

import io
import zipfile

from checkers.bank import dump_question
import quiz_testing as testing
from quizapp.authoring import yamltext

YAML_HEADERS = {"Content-Type": "application/yaml"}


def _authored_text(qid: str) -> str:
    """The sample question as an author might write it: comments, odd key order, quotes, a block scalar."""
    body = dump_question(dict(testing.SAMPLE_QUESTION, id=qid))
    lines = body.splitlines(keepends=True)
    head = "# An author's note that must survive saving.\n"
    # move level above id and quote the level: a layout the bank's dumper would never produce
    out = [head]
    level = next(line for line in lines if line.startswith("level:"))
    out.append("level: 'L1'   # quoted on purpose\n")
    out += [line for line in lines if line is not level]
    out.append("# trailing comment\n")
    return "".join(out)


def _h(creds):
    return {"Authorization": f"Bearer {creds['author_token']}"}


def test_yaml_body_is_stored_and_exported_byte_for_byte(authoring_client, authoring_creds):
    qid = "auth-yaml-bytes"
    text = _authored_text(qid)
    assert text.startswith("# An author's")
    r = authoring_client.post("/api/v1/questions", data=text.encode(), headers={**_h(authoring_creds), **YAML_HEADERS})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["yaml"] == text
    assert authoring_client.post(f"/api/v1/questions/{qid}/publish", headers=_h(authoring_creds)).status_code == 200
    exported = authoring_client.get(f"/api/v1/export?id={qid}", headers=_h(authoring_creds))
    assert exported.status_code == 200 and exported.data == text.encode("utf-8")
    # the bank export (zip) holds the same bytes and is itself the same bytes twice
    z1 = authoring_client.get("/api/v1/export", headers=_h(authoring_creds)).data
    z2 = authoring_client.get("/api/v1/export", headers=_h(authoring_creds)).data
    assert z1 == z2
    names = zipfile.ZipFile(io.BytesIO(z1)).namelist()
    mine = [n for n in names if n.endswith(f"{qid}.yaml")]
    assert len(mine) == 1 and zipfile.ZipFile(io.BytesIO(z1)).read(mine[0]) == text.encode("utf-8")


def test_a_comment_only_change_is_a_new_version(authoring_client, authoring_creds):
    qid = "auth-yaml-comment"
    text = _authored_text(qid)
    h = {**_h(authoring_creds), **YAML_HEADERS}
    assert authoring_client.post("/api/v1/questions", data=text.encode(), headers=h).status_code == 201
    same = authoring_client.put(f"/api/v1/questions/{qid}", data=text.encode(), headers=h)
    assert same.status_code == 200 and same.get_json()["version"] == 1  # nothing changed: nothing new
    changed = text.replace("# trailing comment", "# a better comment")
    r = authoring_client.put(f"/api/v1/questions/{qid}", data=changed.encode(), headers=h)
    assert r.status_code == 201 and r.get_json()["version"] == 2 and r.get_json()["yaml"] == changed


def test_put_without_id_adds_it_and_keeps_comments(authoring_client, authoring_creds):
    qid = "auth-yaml-noid"
    text = _authored_text(qid)
    h = {**_h(authoring_creds), **YAML_HEADERS}
    assert authoring_client.post("/api/v1/questions", data=text.encode(), headers=h).status_code == 201
    no_id = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("id:"))
    no_id = no_id.replace("# trailing comment", "# edited")
    r = authoring_client.put(f"/api/v1/questions/{qid}", data=no_id.encode(), headers=h)
    assert r.status_code == 201, r.get_json()
    stored = r.get_json()["yaml"]
    assert f"id: {qid}\n" in stored and "# An author's note" in stored and "# edited" in stored
    assert "level: 'L1'   # quoted on purpose" in stored


def test_schema_error_names_line_column_and_field(authoring_client, authoring_creds):
    qid = "auth-yaml-badparam"
    text = _authored_text(qid)
    lines = text.splitlines(keepends=True)
    idx = next(i for i, line in enumerate(lines) if line.startswith("params:"))
    lines[idx] = "params:\n  # the parameter below lost its upper bound\n  p: {uniform: [0.2]}\n"
    idx, indent = idx + 2, 2
    r = authoring_client.post("/api/v1/questions", data="".join(lines).encode(),
                              headers={**_h(authoring_creds), **YAML_HEADERS})
    assert r.status_code == 422
    failure = r.get_json()["error"]["failures"][0]
    assert failure["field"] == "params.p"
    assert failure["line"] == idx + 1 and failure["column"] == indent + 1
    assert failure["source_line"].strip() == "p: {uniform: [0.2]}"


def test_expression_error_points_inside_the_expression():
    text = "id: x\nparts:\n  - id: a\n    expected: {expr: \"2*p +\"}\n"
    where = yamltext.locate(text, "parts[0].expected.expr")
    assert where["line"] == 4
    # the value's first character (inside the quotes): column of '2'
    assert text.splitlines()[3][where["value_column"] - 1] == "2"
    assert yamltext.locate(text, "parts[0].prompt.en")["path"] == "parts[0]"  # nearest existing field
    assert yamltext.locate(text, "(yaml)") is None


def test_roundtrip_keeps_every_bank_file_that_uses_block_layout():
    """ruamel.yaml's round trip (the service's own edits) gives an author's block-style file back unchanged:
    comments, quoting, block scalars and indentation; only the added key is new."""
    text = ("# top\nid: q\nlevel: \"L1\"  # why\nprompt:\n  en: |\n    Two\n    lines\n"
            "parts:\n  - id: a\n    tags: [x, 'y']\n")
    assert yamltext.with_top_key(text.replace("id: q\n", ""), "id", "q") == text


def test_alias_bomb_is_still_refused(authoring_client, authoring_creds):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6))
    r = authoring_client.post("/api/v1/questions", data=bomb.encode(), headers={**_h(authoring_creds), **YAML_HEADERS})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "malformed_yaml"
