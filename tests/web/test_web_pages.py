"""Browser-practice pages through Flask's test client."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser


CSP_START = "default-src 'self'"


def html_of(resp) -> str:
    assert resp.mimetype == "text/html"
    return resp.get_data(as_text=True)


def variant_url(client, qid: str, **params) -> str:
    """The address of the variant the server chose for a page asked for without one (served at once, the
    address in the page's config for its script to put in the address bar)."""
    resp = client.get(f"/questions/{qid}", query_string=params)
    assert resp.status_code == 200
    config = json.loads(html.unescape(re.search(r"data-config='([^']*)'", html_of(resp)).group(1)))
    loc = config["address"]
    assert re.fullmatch(rf"/questions/{qid}\?variant=\d+", loc), loc
    variant = int(loc.rsplit("=", 1)[1])
    assert config["variant"] == variant and f"#{variant}" in html_of(resp)  # the page shows that variant
    return loc


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def parse(html: str) -> list[tuple[str, dict]]:
    c = _Collector()
    c.feed(html)
    return c.tags


# ------------------------------------------------------------------ home

def test_web_home_lists_all_levels_and_questions(web_client):
    resp = web_client.get("/?lang=en")
    assert resp.status_code == 200
    html = html_of(resp)
    for level in ("L1", "L2", "L3"):
        assert f'id="level-{level}"' in html
    for qid in ("web-t-numeric", "web-t-derive", "web-t-array", "web-t-xss"):
        assert f'href="/questions/{qid}"' in html
    assert "Web numeric question" in html and "web-basic" in html
    assert "Not tried yet" in html
    assert resp.headers["Content-Security-Policy"].startswith(CSP_START)
    assert "<script" not in html  # home needs no script at all


def test_web_home_filters_by_level_and_tag(web_client):
    html = html_of(web_client.get("/?level=L2&lang=en"))
    assert "web-t-derive" in html and "web-t-numeric" not in html and 'id="level-L1"' not in html
    html = html_of(web_client.get("/?tag=gae&lang=en"))
    assert "web-t-array" in html and "web-t-derive" not in html and "web-t-numeric" not in html
    html = html_of(web_client.get("/?tag=nope&lang=en"))
    assert "No questions match." in html
    html = html_of(web_client.get("/?level=L9&lang=en"))  # unknown level: no filter
    assert "web-t-numeric" in html


def test_web_home_shows_last_result(web_app, web_client):
    from itsdangerous import URLSafeSerializer

    from quizapp.storage.db import get_session
    from quizapp.storage.models import Attempt, Learner
    from quizapp.services.questions import get_question

    learner = "ab" * 16
    with web_app.app_context():
        s = get_session()
        row = get_question(s, "web-t-numeric")
        s.add(Learner(id=learner, role="learner"))
        s.flush()
        s.add(Attempt(learner_id=learner, question_id="web-t-numeric", question_version_id=row["version_id"],
                      variant=7, answers={"a": "1"}, verdicts={}, score=2.0, max_score=3.0, counted=True,
                      lang="en"))
        s.commit()
    cookie = URLSafeSerializer(web_app.config["SECRET_KEY"], salt="quizapp.learner").dumps(learner)
    web_client.set_cookie(web_app.config["LEARNER_COOKIE"], cookie)
    html = html_of(web_client.get("/?lang=en"))
    item = html.split('data-qid="web-t-numeric"', 1)[1].split("</li>", 1)[0]
    assert "Last result: 2/3" in item and "result-partial" in item
    other = html.split('data-qid="web-t-derive"', 1)[1].split("</li>", 1)[0]
    assert "Not tried yet" in other


# ------------------------------------------------------------------ question page

def test_web_question_gets_a_variant_then_renders_maths(web_client):
    loc = variant_url(web_client, "web-t-numeric")
    resp = web_client.get(loc + "&lang=en")
    assert resp.status_code == 200
    html = html_of(resp)
    variant = re.search(r"variant=(\d+)", loc).group(1)
    assert f"#{variant}" in html
    prompt = html.split('id="q-prompt"', 1)[1].split("</div>", 1)[0]
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML"' in prompt and "<mfrac>" in prompt
    assert "$" not in prompt and "{{p}}" not in prompt
    # the formula's spoken words for screen readers, then its drawing, hidden from them
    assert re.search(r"Let <span class=\"math inline\"><span class=\"sr-only\">p equals 0\.\d+</span>"
                     r"<span aria-hidden=\"true\"><math[^>]*><mrow><mi>p</mi><mo>=</mo><mn>0\.\d+</mn>", prompt)
    # one input per part, by kind
    assert 'id="answer-a"' in html and 'type="text"' in html
    assert 'type="radio" name="c" value="x"' in html
    assert 'type="checkbox" name="m" value="u"' in html
    assert 'id="preview-a"' in html
    # the hint is shown on request (recorded, lowering the credit), never up front
    assert "Divide <span" not in html and 'id="hint-btn-a"' in html
    assert resp.headers["Content-Security-Policy"].startswith(CSP_START)


def test_web_question_inputs_for_every_kind(web_client):
    html = html_of(web_client.get(variant_url(web_client, "web-t-derive") + "&lang=en"))
    assert '<input class="answer answer-line" type="text" id="answer-s"' in html
    assert '<textarea class="answer answer-steps" id="answer-d"' in html
    assert "<code>p + (1-p)</code>" in html and "One step per line" in html
    assert 'class="math display"' in html or 'class="math block"' in html
    html = html_of(web_client.get(variant_url(web_client, "web-t-array") + "&lang=en"))
    assert 'id="answer-arr"' in html and "answer-array" in html
    assert 'id="answer-f"' in html and "answer-text" in html


def test_web_question_same_variant_is_stable_and_new_variant_differs(web_client):
    a = html_of(web_client.get("/questions/web-t-numeric?variant=1234&lang=en"))
    b = html_of(web_client.get("/questions/web-t-numeric?variant=1234&lang=en"))
    assert a == b
    assert 'href="/questions/web-t-numeric?prev=1234"' in a
    for _ in range(5):
        loc = variant_url(web_client, "web-t-numeric", prev=1234)
        assert "variant=1234" not in loc


def test_web_question_bad_variant_gets_a_fresh_one(web_client):
    for bad in ("-1", "abc", "1000000", "99999999999"):
        assert "variant=" + bad not in variant_url(web_client, "web-t-numeric", variant=bad)


def test_web_question_with_its_variant_has_no_address_to_write(web_client):
    page = html_of(web_client.get("/questions/web-t-numeric?variant=7&lang=en"))
    config = json.loads(html.unescape(re.search(r"data-config='([^']*)'", page).group(1)))
    assert config["variant"] == 7 and config["address"] is None


def test_web_question_page_has_no_inline_script(web_client):
    html = html_of(web_client.get("/questions/web-t-numeric?variant=5&lang=en"))
    scripts = [attrs for tag, attrs in parse(html) if tag == "script"]
    assert scripts and all(a.get("src", "").startswith("/assets/") for a in scripts)
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    assert not any(k.startswith("on") for _tag, attrs in parse(html) for k in attrs)
    assert ' style="' not in html
    m = re.search(r"data-config='([^']*)'", html)
    import json
    cfg = json.loads(m.group(1).replace("&#39;", "'").replace("&amp;", "&").replace("&quot;", '"'))
    assert cfg["qid"] == "web-t-numeric" and cfg["variant"] == 5 and cfg["lang"] == "en"
    assert cfg["i18n"]["submit"] == "Submit"


def test_web_unknown_question_is_a_404_page(web_client):
    resp = web_client.get("/questions/no-such-question?variant=1&lang=en")
    assert resp.status_code == 404
    html = html_of(resp)
    assert "Not found" in html and 'href="/"' in html
    assert resp.headers["Content-Security-Policy"].startswith(CSP_START)
    resp = web_client.get("/questions/no-such-question?lang=zh")
    assert resp.status_code == 404 and "未找到" in html_of(resp)


# ------------------------------------------------------------------ language

def test_web_language_switch_query_and_cookie(web_client):
    resp = web_client.get("/?lang=zh")
    html = html_of(resp)
    assert '<html lang="zh-CN">' in html and "网页数值题" in html and "全部题目" in html
    assert "quiz_lang=zh" in resp.headers.get("Set-Cookie", "")
    # the cookie keeps Chinese without the query parameter
    html = html_of(web_client.get("/"))
    assert "网页数值题" in html and "Web numeric question" not in html
    # the switch link points to English on the same page
    assert 'href="/?lang=en"' in html and ">English<" in html
    page = html_of(web_client.get("/questions/web-t-numeric?variant=3"))
    assert "赔率" in page and "提交" in page and "换一组数据" in page
    assert 'href="/questions/web-t-numeric?variant=3&amp;lang=en"' in page
    html = html_of(web_client.get("/?lang=en"))
    assert '<html lang="en">' in html and "Web numeric question" in html and ">中文<" in html
    assert "Web numeric question" in html_of(web_client.get("/"))


def test_web_language_from_accept_language(web_app):
    client = web_app.test_client()
    html = html_of(client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}))
    assert "全部题目" in html
    html = html_of(client.get("/", headers={"Accept-Language": "fr-FR"}))
    assert "All questions" in html


# ------------------------------------------------------------------ XSS in authored content

def test_web_xss_question_renders_inert(web_client):
    for lang in ("en", "zh"):
        html = html_of(web_client.get(f"/questions/web-t-xss?variant=0&lang={lang}"))
        for tag, attrs in parse(html):
            assert tag not in {"iframe", "svg", "object", "embed", "style"}, tag
            if tag == "script":
                assert attrs.get("src") == "/assets/quiz.js"
            for name, value in attrs.items():
                assert not name.startswith("on"), (tag, name)
                assert name not in {"style", "srcdoc"}, (tag, name)
                assert "javascript:" not in (value or "").lower(), (tag, name, value)
        if lang == "en":
            assert "Prompt" in html and "styled" in html  # the harmless text is still there
    html = html_of(web_client.get("/?lang=en"))
    assert "<script" not in html and "onerror" not in html


# ------------------------------------------------------------------ render endpoint and assets

def test_web_render_endpoint(web_client):
    resp = web_client.post("/render", json={"items": ["$x^2$", "<script>alert(1)</script>\n\n**b**", None]})
    assert resp.status_code == 200
    out = resp.get_json()["html"]
    assert "<msup>" in out[0]
    assert "<script" not in out[1] and "<strong>b</strong>" in out[1]
    assert out[2] == ""
    assert web_client.post("/render", json={"items": "x"}).status_code == 422
    assert web_client.post("/render", data="nope", content_type="text/plain").status_code == 422
    assert web_client.post("/render", json={"items": ["x" * 150_000, "y" * 150_000]}).status_code == 413


def test_web_static_assets_served(web_client):
    js = web_client.get("/assets/quiz.js")
    assert js.status_code == 200 and "safeMath" in js.get_data(as_text=True)
    css = web_client.get("/assets/quiz.css")
    assert css.status_code == 200 and "@media" in css.get_data(as_text=True)
    assert js.headers["Content-Security-Policy"].startswith(CSP_START)
