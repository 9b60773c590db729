"""XSS payloads in title/prompt/solution/options/feedback, authored through the API and published, are inert in a
real headless Chromium: on the learner's question page, the author's editor (server-rendered and live preview),
and the author's list. Every payload tries to set window.__xss / document.title or open an alert."""

from __future__ import annotations

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

TITLE = "XSS-CANARY"
QID = "auth-xss-payloads"

P = ("<script>window.__xss=1;document.title='pwned'</script>"
     "<img src=x onerror=\"window.__xss=2;document.title='pwned'\">"
     "<svg onload=\"window.__xss=3\"></svg><iframe srcdoc=\"<script>parent.__xss=4</script>\"></iframe>"
     "<a href=\"javascript:window.__xss=5\" id=\"xss-link\">click</a>"
     "<details open ontoggle=\"window.__xss=6\"><summary>s</summary></details>"
     "<body onload=\"window.__xss=7\">")
MATH = ("$\\href{javascript:window.__xss=8}{x}$ $\\text{<img src=x onerror=window.__xss=9>}$ "
        "$$</math><img src=x onerror=window.__xss=10>$$")


def _t(en, zh):
    return {"en": en, "zh": zh}


def xss_question() -> dict:
    return {
        "id": QID, "level": "L1", "tags": ["xss"],
        "title": _t(f"{TITLE} <img src=x onerror=\"window.__xss=11\"><script>window.__xss=12</script> $x^2$",
                    "标题 " + P),
        "prompt": _t(f"Prompt {P}\n\n[md link](javascript:window.__xss=13)\n\n{MATH}\n\n"
                     "<math><mi href=\"javascript:window.__xss=14\">m</mi><maction actiontype=\"statusline\">"
                     "<mi>a</mi><mtext>b</mtext></maction></math>\n\n"
                     "<style>body{background:url(javascript:window.__xss=15)}</style>"
                     "<form action=\"javascript:window.__xss=16\"><button id=\"xss-btn\">go</button></form>",
                     "提示 " + P),
        "params": {"p": {"uniform": [0.2, 0.8], "round": 2}},
        "parts": [
            {"id": "a", "kind": "numeric", "prompt": _t("Part " + P + " " + MATH, "小题 " + P),
             "hint": _t("Hint " + P, "提示 " + P), "expected": {"expr": "2*p"},
             "mistakes": [{"expr": "p", "note": "half", "feedback": _t("Feedback " + P, "反馈 " + P)}]},
            {"id": "b", "kind": "choice", "prompt": _t("Choose " + P, "选择 " + P),
             "options": [{"id": "x", "text": _t("opt " + P, "选项 " + P)}, {"id": "y", "text": _t("other", "其他")}],
             "correct": "x", "multiple": False},
        ],
        "solution": {"key_points": _t(["kp " + P + " " + MATH], ["要点 " + P]),
                     "pitfalls": _t(["pit " + P], ["陷阱 " + P]),
                     "worked": _t("worked " + P + "\n\n" + MATH, "解答 " + P)},
    }


@pytest.fixture(scope="module")
def xss_server(tmp_path_factory):
    from quizapp.auth import create_author, create_token
    from quizapp.storage.db import get_db

    tmp = tmp_path_factory.mktemp("auth-xss")
    app = testing.make_app(tmp)
    s = get_db(app).Session()
    author = create_author(s, "xss-author", "xss-author-password")
    _, token = create_token(s, author.id)
    s.close()
    client = app.test_client()
    h = {"Authorization": f"Bearer {token}"}
    r = client.post("/api/v1/questions", json=xss_question(), headers=h)
    assert r.status_code == 201 and r.get_json()["selftest"]["ok"], r.get_json()
    assert client.post(f"/api/v1/questions/{QID}/publish", headers=h).status_code == 200

    with testing.serve_in_thread(app, threads=4) as url:
        yield {"url": url, "user": "xss-author", "password": "xss-author-password"}
    get_db(app).dispose()


@pytest.fixture(scope="module")
def xss_browser():
    with testing.headless_chromium(window_size=(1280, 900), profile_prefix="auth-xss-chromium-") as driver:
        yield driver


def _wait(driver, cond, msg, timeout=20):
    return testing.wait_for(driver, cond, msg, timeout)


def _assert_inert(driver, where: str) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        alert = driver.switch_to.alert
        text = alert.text
        alert.dismiss()
        pytest.fail(f"{where}: an alert opened: {text!r}")
    except NoAlertPresentException:
        pass
    assert driver.execute_script("return typeof window.__xss") == "undefined", (
        where, driver.execute_script("return window.__xss"))
    assert driver.title != "pwned", where  # the payloads set exactly this title
    # nothing dangerous survived in the DOM
    found = driver.execute_script("""
        var bad = [];
        document.querySelectorAll('#main *').forEach(function (el) {
          for (var i = 0; i < el.attributes.length; i++) {
            var a = el.attributes[i];
            if (/^on/i.test(a.name) || /javascript:/i.test(a.value)) { bad.push(el.tagName + ' ' + a.name); }
          }
          if (/^(SCRIPT|IFRAME|SVG|STYLE|FORM|MACTION)$/i.test(el.tagName) &&
              !(el.tagName === 'FORM' && el.getAttribute('action') && el.getAttribute('action').indexOf('/author') === 0) &&
              !(el.tagName === 'FORM' && el.id === 'quiz-form')) { bad.push(el.tagName); }
        });
        return bad;""")
    assert found == [], (where, found)


def _poke(driver) -> None:
    """Click what a learner might click: links and details in the rendered content."""
    for el in driver.find_elements("css selector", ".prose a, .preview-question a, .prose summary"):
        try:
            if el.is_displayed():
                href = el.get_attribute("href") or ""
                if href.startswith("http") and "/author" not in href and "/questions" not in href:
                    continue
                el.click()
        except Exception:  # noqa: BLE001 - not clickable is fine
            pass


def test_authoring_xss_inert_on_learner_page(xss_server, xss_browser):
    d = xss_browser
    for lang in ("en", "zh"):
        d.get(f"{xss_server['url']}/questions/{QID}?variant=5&lang={lang}")
        _wait(d, lambda drv: drv.find_elements("id", "q-title"), "question page did not load")
        if lang == "en":
            assert d.execute_script(
                "return document.getElementById('q-prompt').getElementsByTagNameNS('*', 'math').length") >= 2, \
                "maths should still render as MathML"
            assert TITLE in d.find_element("id", "q-title").text
        _poke(d)
        _assert_inert(d, f"learner page ({lang})")


def test_authoring_xss_inert_in_author_editor_and_list(xss_server, xss_browser):
    d = xss_browser
    base = xss_server["url"]
    d.get(f"{base}/author/login")
    d.find_element("id", "username").send_keys(xss_server["user"])
    d.find_element("id", "password").send_keys(xss_server["password"])
    d.find_element("id", "login-submit").click()
    _wait(d, lambda drv: drv.find_elements("id", "question-list"), "login did not reach the list")
    _assert_inert(d, "author list")

    d.get(f"{base}/author/q/{QID}?seed=3")
    _wait(d, lambda drv: drv.find_elements("id", "preview-title"), "server-side preview missing")
    _assert_inert(d, "editor (server preview)")
    # the live preview (author.js -> /author/preview -> innerHTML) replaces the panel
    _wait(d, lambda drv: drv.find_element("id", "preview-state").get_attribute("data-state") == "live",
          "live preview did not run")
    assert TITLE in d.find_element("id", "preview-title").text
    assert d.execute_script("return document.getElementById('preview-solution').getElementsByTagNameNS('*', 'math').length") >= 1
    _poke(d)
    _assert_inert(d, "editor (live preview)")
    # type a fresh payload into the editor: the live preview renders it, inert
    area = d.find_element("id", "yaml")
    d.execute_script("arguments[0].value = arguments[0].value.replace('Prompt ', "
                     "'Prompt <img src=y onerror=window.__xss=99> NEWMARK ')", area)
    d.execute_script("arguments[0].dispatchEvent(new Event('input'))", area)
    _wait(d, lambda drv: "NEWMARK" in drv.find_element("id", "preview-prompt").text, "preview did not update")
    _assert_inert(d, "editor (typed payload)")
