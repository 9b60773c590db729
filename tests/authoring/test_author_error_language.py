"""The authoring errors an author meets reach the editor in the page's language (a refused save or publish,
retire and unretire, in Chinese on the Chinese pages), while the API keeps its envelope: the same ``code``
and ``field``, the message in English unless the request asks for ``lang=zh``; ``err.message`` (logs, the
CLI) stays English whatever the request's language."""

from __future__ import annotations

import copy
import html
import io
import zipfile

import pytest

import quiz_testing as testing
from checkers.bank import dump_question

SAMPLE_ID = testing.SAMPLE_QUESTION["id"]


@pytest.fixture
def editor(authoring_client, authoring_passwords, authoring_login):
    """A client signed in as the author (pages) and its CSRF token."""
    token = authoring_login(authoring_client, "alice", authoring_passwords["alice"])
    return authoring_client, token


@pytest.fixture
def api(authoring_app, authoring_creds, authoring_bearer):
    """A fresh client (no session cookie) and the author's bearer header."""
    return authoring_app.test_client(), authoring_bearer(authoring_creds["author_token"])


def _page(resp) -> str:
    return html.unescape(resp.get_data(as_text=True))


def _flashes(page: str) -> str:
    assert 'id="flashes"' in page
    return page.split('id="flashes"', 1)[1].split("</ul>", 1)[0]


def _broken_draft() -> str:
    broken = copy.deepcopy(testing.SAMPLE_QUESTION)
    broken["parts"][0]["expected"] = {"expr": "2*p +"}  # cannot be computed: the draft fails its self-test
    return dump_question(broken)


# --------------------------------------------------------------------------- an id that exists

def test_an_id_that_exists_is_refused_in_chinese_on_the_chinese_editor(editor):
    client, token = editor
    text = dump_question(copy.deepcopy(testing.SAMPLE_QUESTION))  # the sample is loaded: its id exists
    zh = client.post("/author/save", query_string={"lang": "zh"}, data={"yaml": text, "csrf_token": token})
    assert zh.status_code == 409
    table = _page(zh).split('id="save-failures"', 1)[1].split("</table>", 1)[0]
    assert f"已有 id 为“{SAMPLE_ID}”的题目" in table
    assert f"PUT /api/v1/questions/{SAMPLE_ID}" in table  # the API's way is named in both languages
    assert "exists already" not in table
    en = client.post("/author/save", query_string={"lang": "en"}, data={"yaml": text, "csrf_token": token})
    table = _page(en).split('id="save-failures"', 1)[1].split("</table>", 1)[0]
    assert f"a question with the id '{SAMPLE_ID}' exists already" in table and "已有" not in table


def test_the_api_keeps_its_envelope_for_an_id_that_exists(api):
    client, auth = api
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    en = client.post("/api/v1/questions", json=data, headers=auth)
    assert en.status_code == 409
    err = en.get_json()["error"]
    assert (err["code"], err["field"]) == ("question_exists", "id")
    assert err["message"].startswith(f"a question with the id '{SAMPLE_ID}' exists already")
    assert f"PUT /api/v1/questions/{SAMPLE_ID}" in err["message"]
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in err["message"])
    # the API answers in the request's lang: the same refusal with ?lang=zh is in Chinese, same code and field
    zh = client.post("/api/v1/questions", query_string={"lang": "zh"}, json=data, headers=auth)
    body = zh.get_json()["error"]
    assert zh.status_code == 409 and (body["code"], body["field"]) == ("question_exists", "id")
    assert body["message"].startswith(f"已有 id 为“{SAMPLE_ID}”的题目")


# --------------------------------------------------------------------------- a refused publish

def test_a_publish_failing_its_self_test_is_refused_in_chinese(editor):
    client, token = editor
    saved = client.post("/author/save", data={"yaml": _broken_draft(), "qid": SAMPLE_ID, "csrf_token": token})
    assert saved.status_code == 302
    number = int(saved.headers["Location"].rsplit("version=", 1)[1])
    resp = client.post(f"/author/q/{SAMPLE_ID}/publish", query_string={"lang": "zh"},
                       data={"version": str(number), "csrf_token": token})
    assert resp.status_code == 409
    flashes = _flashes(_page(resp))
    assert f"“{SAMPLE_ID}”的第 {number} 版未通过自检" in flashes
    assert "fails its self-test" not in flashes


def test_publishing_a_published_version_is_refused_in_chinese_and_in_english_by_the_api(editor, api):
    client, token = editor
    resp = client.post(f"/author/q/{SAMPLE_ID}/publish", query_string={"lang": "zh"},
                       data={"version": "1", "csrf_token": token}, follow_redirects=True)
    flashes = _flashes(_page(resp))
    assert f"“{SAMPLE_ID}”的第 1 版已发布,不是草稿" in flashes and "not a draft" not in flashes
    api_client, auth = api
    en = api_client.post(f"/api/v1/questions/{SAMPLE_ID}/publish", json={"version": 1}, headers=auth)
    err = en.get_json()["error"]
    assert en.status_code == 409 and (err["code"], err["field"]) == ("not_a_draft", "version")
    assert err["message"] == f"version 1 of '{SAMPLE_ID}' is published, not a draft: save a new version first"


def test_the_api_names_a_failing_self_test_in_english_with_its_failures(editor, api):
    client, token = editor
    saved = client.post("/author/save", data={"yaml": _broken_draft(), "qid": SAMPLE_ID, "csrf_token": token})
    number = int(saved.headers["Location"].rsplit("version=", 1)[1])
    api_client, auth = api
    resp = api_client.post(f"/api/v1/questions/{SAMPLE_ID}/publish", json={"version": number}, headers=auth)
    err = resp.get_json()["error"]
    assert resp.status_code == 409 and (err["code"], err["field"]) == ("selftest_failed", "version")
    n = len(err["failures"])
    assert n > 0
    assert err["message"] == (f"version {number} of '{SAMPLE_ID}' fails its self-test ({n} failure(s)); "
                              "fix them and save a new draft")


# --------------------------------------------------------------------------- retire, unretire, unknown ids

def test_unretire_and_retire_refusals_in_chinese(editor):
    client, token = editor
    resp = client.post(f"/author/q/{SAMPLE_ID}/unretire", query_string={"lang": "zh"},
                       data={"csrf_token": token}, follow_redirects=True)
    assert f"题目“{SAMPLE_ID}”已经处于发布状态" in _flashes(_page(resp))
    done = client.post(f"/author/q/{SAMPLE_ID}/retire", data={"confirm": "yes", "csrf_token": token})
    assert done.status_code == 302
    again = client.post(f"/author/q/{SAMPLE_ID}/retire", data={"confirm": "yes", "csrf_token": token},
                        follow_redirects=True)
    assert f"题目“{SAMPLE_ID}”没有已发布的版本" in _flashes(_page(again))


def test_unknown_question_and_mismatched_id_in_both_languages(editor, api):
    client, token = editor
    text = dump_question(copy.deepcopy(testing.SAMPLE_QUESTION))
    resp = client.post("/author/save", query_string={"lang": "zh"},
                       data={"yaml": text, "qid": "no-such-question-here", "csrf_token": token})
    assert resp.status_code == 404 and "没有题目“no-such-question-here”" in _page(resp)
    other = copy.deepcopy(testing.SAMPLE_QUESTION)
    other["id"] = "language-other-id"
    resp = client.post("/author/save", query_string={"lang": "zh"},
                       data={"yaml": dump_question(other), "qid": SAMPLE_ID, "csrf_token": token})
    assert resp.status_code == 422
    assert f"题目里的 id“language-other-id”与正在保存的题目“{SAMPLE_ID}”" in _page(resp)
    api_client, auth = api
    en = api_client.put(f"/api/v1/questions/{SAMPLE_ID}", json=other, headers=auth)
    err = en.get_json()["error"]
    assert en.status_code == 422 and (err["code"], err["field"]) == ("id_mismatch", "id")
    assert err["message"].startswith(f"the question's id 'language-other-id' differs from '{SAMPLE_ID}'")
    missing = api_client.get("/api/v1/questions/no-such-question-here/versions", headers=auth)
    err = missing.get_json()["error"]
    assert missing.status_code == 404 and (err["code"], err["field"]) == ("unknown_question", "question_id")
    assert err["message"] == "no question 'no-such-question-here'"


# --------------------------------------------------------------------------- import

def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in files.items():
            zf.writestr(name, content)
    return buf.getvalue()


def test_import_refusals_follow_the_requests_language(api, authoring_question):
    client, auth = api
    zip_headers = {**auth, "Content-Type": "application/zip"}
    en = client.post("/api/v1/import", data=b"not a zip at all", headers=zip_headers)
    err = en.get_json()["error"]
    assert en.status_code == 422 and (err["code"], err["field"], err["message"]) == (
        "bad_archive", None, "the body is not a zip archive")
    zh = client.post("/api/v1/import", query_string={"lang": "zh"}, data=b"not a zip at all", headers=zip_headers)
    assert zh.get_json()["error"]["message"] == "请求体不是 zip 压缩包"
    # two files, one of them with a schema failure: the summary counts the problems in each language
    good = dump_question(authoring_question("language-import-good"))
    bad = dump_question(authoring_question("language-import-bad", level="L9"))
    archive = _zip({"L1/good.yaml": good, "L1/bad.yaml": bad})
    en = client.post("/api/v1/import", data=archive, headers=zip_headers)
    err = en.get_json()["error"]
    n = len(err["failures"])
    assert en.status_code == 422 and (err["code"], err["field"]) == ("import_failed", "files") and n >= 1
    assert err["message"] == f"{n} problem(s) in the imported files; nothing was imported"
    zh = client.post("/api/v1/import", query_string={"lang": "zh"}, data=archive, headers=zip_headers)
    assert zh.get_json()["error"]["message"] == f"导入的文件中有 {n} 处问题;没有导入任何内容"
    assert client.get("/api/v1/questions/language-import-good/versions", headers=auth).status_code == 404


def test_the_service_errors_english_text_stays_english_in_a_chinese_request(authoring_app):
    """``err.message`` (logs, ``quizapp`` CLI) is the English text; ``localized()`` follows the request."""
    from quizapp.authoring import versions
    from quizapp.errors import Conflict
    from quizapp.storage.db import get_db

    with authoring_app.test_request_context("/author/?lang=zh"):
        s = get_db(authoring_app).Session()
        try:
            with pytest.raises(Conflict) as info:
                versions.unretire(s, SAMPLE_ID)
        finally:
            s.close()
        assert info.value.message == f"question '{SAMPLE_ID}' is published already"
        assert info.value.localized() == f"题目“{SAMPLE_ID}”已经处于发布状态"
        assert info.value.envelope()["error"]["code"] == "already_published"
