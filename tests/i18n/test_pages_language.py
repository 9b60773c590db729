"""Pages in every language: nothing from the catalog is left in English on a Chinese page, and the
language is chosen by ?lang=, then the cookie, then Accept-Language, else English. The JSON API's error
messages follow the request's lang."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import quiz_testing as testing
from quizapp.i18n import LANG_COOKIE

ROOT = Path(__file__).resolve().parents[2]
QID = testing.SAMPLE_QUESTION["id"]
LEARNER_PAGES = ["/", f"/questions/{QID}?variant=3", "/questions/no-such-question?variant=1"]
AUTHOR_PAGES = ["/author/", "/author/new", f"/author/q/{QID}", "/author/tokens"]
SHOWN_ATTRS = ("title", "placeholder", "aria-label", "alt", "data-msg-live", "data-msg-failed",
               "data-msg-unavailable")


class _Texts(HTMLParser):
    """Text nodes and shown attribute values of a page, plus the strings table handed to the script.
    Left out: the language switch (it names the other language in that language on purpose) and the
    editor's textarea (the author's own YAML, not interface text)."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._skip or "lang-switch" in (attrs.get("class") or "").split():
            self._skip += 1
            return
        self.texts += [attrs[a] for a in SHOWN_ATTRS if attrs.get(a)]
        if tag == "textarea":
            self._skip += 1
            return
        if tag in ("input", "meta", "link", "br", "img"):  # void elements have no end tag
            return
        if attrs.get("data-config"):
            self.texts += list(json.loads(attrs["data-config"])["i18n"].values())

    def handle_endtag(self, tag):
        if self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.texts.append(" ".join(data.split()))


def shown_texts(html: str) -> list[str]:
    parser = _Texts()
    parser.feed(html)
    return parser.texts


def _catalog() -> list[str]:
    """The English msgids translated to something else (both forms of a plural entry)."""
    with open(ROOT / "quizapp" / "translations" / "zh" / "LC_MESSAGES" / "messages.po", "rb") as fh:
        out = []
        for m in read_po(fh):
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            first = m.string[0] if isinstance(m.string, tuple) else m.string
            if ids[0] and first != ids[0]:
                out += list(ids)
        return out


def _pattern(msgid: str) -> re.Pattern:
    """The msgid as a regex with its placeholders as wildcards; matches a text node that is (or holds,
    for whole sentences) the English text."""
    body = ".+?".join(re.escape(chunk) for chunk in re.split(r"%\(\w+\)s", msgid))
    return re.compile(body if len(msgid.split()) >= 3 else rf"^{body}:?$")


ENGLISH = [(msgid, _pattern(msgid)) for msgid in _catalog()]


def english_left(texts: list[str]) -> list[str]:
    return sorted({msgid for msgid, pat in ENGLISH for t in texts if pat.search(t)})


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    app = testing.make_app(tmp_path_factory.mktemp("i18n"))
    testing.load_sample(app)
    from quizapp.auth import create_author
    from quizapp.storage.db import get_db

    with app.app_context():
        s = get_db(app).Session()
        create_author(s, "alice", "correct horse battery")
        s.close()
    yield app
    get_db(app).dispose()


@pytest.fixture()
def author(site):
    client = site.test_client()
    testing.author_login(client, "alice", "correct horse battery")
    return client


def test_the_english_detector_sees_catalog_text():
    """The check below would notice an untranslated label, a sentence, and a filled-in placeholder."""
    assert english_left(["提交", "Submit"]) == ["Submit"]
    assert english_left(["Passed over 20 seeds."]) == ["Passed over %(n)s seeds."]
    assert english_left(["第 3 步", "RLHF"]) == []


@pytest.mark.parametrize("path", LEARNER_PAGES + ["/author/login"])
def test_public_pages_in_both_languages(site, path):
    client = site.test_client()
    zh = client.get(path + ("&" if "?" in path else "?") + "lang=zh")
    en = client.get(path + ("&" if "?" in path else "?") + "lang=en")
    assert zh.status_code == en.status_code and zh.status_code in (200, 404)
    zh_html, en_html = zh.get_data(as_text=True), en.get_data(as_text=True)
    assert '<html lang="zh-CN">' in zh_html and '<html lang="en">' in en_html
    assert english_left(shown_texts(zh_html)) == []
    assert re.search(r"[\u4e00-\u9fff]", " ".join(shown_texts(zh_html)))
    assert not re.search(r"[\u4e00-\u9fff]", " ".join(shown_texts(en_html)))


@pytest.mark.parametrize("path", AUTHOR_PAGES)
def test_author_pages_in_both_languages(author, path):
    sep = "&" if "?" in path else "?"
    zh_html = author.get(f"{path}{sep}lang=zh").get_data(as_text=True)
    en_html = author.get(f"{path}{sep}lang=en").get_data(as_text=True)
    assert '<html lang="zh-CN">' in zh_html and '<html lang="en">' in en_html
    texts = shown_texts(zh_html)
    if 'id="preview"' in zh_html:  # the preview pane follows its own language select (English here)
        texts = shown_texts(zh_html.split('<div id="preview">')[0])
    assert english_left(texts) == []
    assert english_left(shown_texts(en_html))  # the English page shows the catalog's English text
    assert re.search(r"[\u4e00-\u9fff]", " ".join(texts))


def test_question_page_script_strings_follow_the_page(site):
    client = site.test_client()
    for lang, submit, column in (("en", "Submit", "column {n}"), ("zh", "提交", "第 {n} 列")):
        html = client.get(f"/questions/{QID}?variant=1&lang={lang}").get_data(as_text=True)
        raw = re.search(r"data-config='([^']*)'", html).group(1)
        cfg = json.loads(raw.replace("&#39;", "'").replace("&amp;", "&").replace("&quot;", '"'))
        assert cfg["lang"] == lang and cfg["i18n"]["submit"] == submit and cfg["i18n"]["column"] == column


# ------------------------------------------------------------------ choosing the language

def _home(client, **headers) -> str:
    return client.get("/", headers=headers).get_data(as_text=True)


def test_accept_language_zh_cn_without_cookie_gives_chinese(site):
    assert "全部题目" in _home(site.test_client(), **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"})
    assert "All questions" in _home(site.test_client(), **{"Accept-Language": "fr-FR,fr;q=0.9"})
    assert "All questions" in _home(site.test_client())


def test_query_beats_cookie_beats_header(site):
    client = site.test_client()
    client.set_cookie(LANG_COOKIE, "zh")
    assert "全部题目" in _home(client, **{"Accept-Language": "en"})  # cookie beats header
    resp = client.get("/?lang=en", headers={"Accept-Language": "zh-CN"})  # query beats both
    assert "All questions" in resp.get_data(as_text=True)
    assert f"{LANG_COOKIE}=en" in resp.headers.get("Set-Cookie", "")  # and is remembered
    assert "All questions" in _home(client, **{"Accept-Language": "zh-CN"})
    client.set_cookie(LANG_COOKIE, "xx")  # a cookie naming no supported language is ignored
    assert "全部题目" in _home(client, **{"Accept-Language": "zh-CN"})


def test_switch_link_on_every_page_sets_the_cookie(site, author):
    for client, path in [(site.test_client(), p) for p in LEARNER_PAGES] + [(author, p) for p in AUTHOR_PAGES]:
        html = client.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
        link = re.search(r'<a class="lang-switch" id="lang-switch" href="([^"]+)"', html)
        assert link and "lang=zh" in link.group(1), path
        resp = client.get(link.group(1).replace("&amp;", "&"))
        assert f"{LANG_COOKIE}=zh" in resp.headers.get("Set-Cookie", ""), path
        client.set_cookie(LANG_COOKIE, "en")


# ------------------------------------------------------------------ API error messages

def test_api_error_message_follows_the_request_language(site):
    client = site.test_client()
    url = f"/api/v1/questions/{QID}/attempts"
    english = client.post(url, json={"variant": 1, "answers": {}, "colour": 1}).get_json()["error"]
    assert english["code"] == "unknown_field" and english["message"].startswith("unknown field 'colour'")
    body_zh = client.post(url, json={"variant": 1, "answers": {}, "colour": 1, "lang": "zh"}).get_json()["error"]
    assert body_zh["message"].startswith("未知字段 'colour'") and body_zh["field"] == "colour"
    query_zh = client.post(url + "?lang=zh", data="x", content_type="text/plain").get_json()["error"]
    assert query_zh["code"] == "unsupported_media_type" and "请以 JSON 发送请求体" in query_zh["message"]
    # the API does not read Accept-Language: a notebook's locale should not change its error texts
    header = client.post(url, data="x", content_type="text/plain", headers={"Accept-Language": "zh-CN"})
    assert header.get_json()["error"]["message"].startswith("send the body as JSON")
    missing = client.get("/api/v1/questions/no-such-route-here/x?lang=zh").get_json()["error"]
    assert missing["code"] == "not_found" and re.search(r"[\u4e00-\u9fff]", missing["message"])


def test_a_template_under_force_locale_speaks_that_language(app):
    """Templates look the catalog up once per request and locale: a block rendered under force_locale (in
    the middle of a Chinese request) still gets its own language, before and after the request's own."""
    from flask import render_template_string

    from quizapp.i18n import force_locale

    source = "{{ _('Questions') }}"
    with app.test_request_context("/?lang=zh"):
        zh = render_template_string(source)
        with force_locale("en"):
            en = render_template_string(source)
        again = render_template_string(source)
    assert en == "Questions" and zh == again and zh != en


def test_python_gettext_and_current_lang_follow_force_locale(app):
    """Python code's gettext and current_lang keep the request's catalog between calls: under force_locale
    they speak the forced language, and the request's own again after it; outside any app the msgid comes
    back, formatted."""
    from quizapp.i18n import current_lang, force_locale, gettext

    with app.test_request_context("/?lang=zh"):
        zh, zh_lang = gettext("Questions"), current_lang()
        with force_locale("en"):
            en, en_lang = gettext("Questions"), current_lang()
            n = gettext("Part %(n)s", n=2)
        again, again_lang = gettext("Questions"), current_lang()
    assert (zh_lang, en_lang, again_lang) == ("zh", "en", "zh")
    assert en == "Questions" and n == "Part 2" and zh == again and re.search(r"[\u4e00-\u9fff]", zh)
    assert gettext("Part %(n)s", n=3) == "Part 3"
