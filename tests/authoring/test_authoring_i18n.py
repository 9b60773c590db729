"""The author's pages in English and Chinese, chosen like the learner pages (?lang= > cookie > browser)."""

from __future__ import annotations

import re

from pathlib import Path

from babel.messages.pofile import read_po

from quizapp.i18n import LANG_COOKIE

QUIZAPP = Path(__file__).resolve().parents[2] / "quizapp"


def test_author_strings_have_both_languages():
    """Every text the author's templates and pages.py pass to gettext has a Chinese translation."""
    sources = [p.read_text(encoding="utf-8") for p in sorted((QUIZAPP / "templates" / "author").glob("*.html"))]
    sources.append((QUIZAPP / "authoring" / "pages.py").read_text(encoding="utf-8"))
    with open(QUIZAPP / "translations" / "zh" / "LC_MESSAGES" / "messages.po", "rb") as fh:
        catalog = read_po(fh)
    used = [m for m in catalog if m.id and any(f"'{m.id}'" in src or f'"{m.id}"' in src for src in sources)]
    assert len(used) > 40
    for m in used:
        if not re.search(r"[A-Za-z]", m.id):  # punctuation (a list separator ", " -> "、"): nothing to write
            assert m.string, m.id
            continue
        assert m.string and m.string != m.id, m.id
        assert re.search(r"[\u4e00-\u9fff]", m.string), m.id  # written in Chinese
        assert sorted(re.findall(r"%\(\w+\)s", m.id)) == sorted(re.findall(r"%\(\w+\)s", m.string)), m.id


def test_author_login_in_chinese_and_remembered(authoring_client):
    c = authoring_client
    r = c.get("/author/login?lang=zh")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and '<html lang="zh-CN">' in html
    assert "出题人登录" in html and "用户名" in html and "密码" in html and "Author login" not in html
    assert f"{LANG_COOKIE}=zh" in r.headers.get("Set-Cookie", "")
    assert 'id="lang-switch"' in html and "lang=en" in html
    again = c.get("/author/login").get_data(as_text=True)  # the cookie remembers it
    assert "出题人登录" in again
    with c.session_transaction() as sess:
        token = sess["csrf"]
    r = c.post("/author/login", data={"username": "alice", "password": "wrong password!", "csrf_token": token})
    assert r.status_code == 401 and "用户名或密码错误。" in r.get_data(as_text=True)
    english = c.get("/author/login?lang=en").get_data(as_text=True)
    assert "Author login" in english and "出题人登录" not in english and '<html lang="en">' in english


def test_author_pages_in_chinese(authoring_client, authoring_passwords, authoring_login):
    c = authoring_client
    authoring_login(c, "alice", authoring_passwords["alice"])
    index = c.get("/author/?lang=zh").get_data(as_text=True)
    assert "新建题目" in index and "API 令牌" in index and "退出登录" in index and "New question" not in index
    editor = c.get("/author/q/svc-sample-double").get_data(as_text=True)
    assert "保存草稿" in editor and "v1 的自检" in editor and "已发布" in editor
    assert 'option value="en" selected' in editor  # the preview's language is its own choice
    assert "Save draft" not in editor
    tokens = c.get("/author/tokens").get_data(as_text=True)
    assert "创建令牌" in tokens and "Create token" not in tokens
    assert "Create token" in c.get("/author/tokens?lang=en").get_data(as_text=True)
