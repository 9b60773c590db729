"""An author in a real headless Chromium: writes a question with comments, saves, publishes and exports the
same bytes; breaks a parameter and sees the error at its line; sees a self-test failure once with its seeds;
diffs two versions; restores the old one; retires (after confirming) and un-retires; the header fits 375 px."""

from __future__ import annotations

import copy
import urllib.request

import pytest

from checkers.bank import dump_question
import quiz_testing as testing

pytestmark = pytest.mark.browser

QID = "auth-browser-edit"
USER, PASSWORD = "browser-author", "browser-author-password"


def _authored() -> str:
    body = dump_question(dict(copy.deepcopy(testing.SAMPLE_QUESTION), id=QID))
    return "# Written by hand: this comment must survive.\n" + body.replace(
        "level: L1\n", "level: 'L1'  # quoted on purpose\n")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from quizapp.auth import create_author, create_token
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path_factory.mktemp("auth-editor"))
    s = get_db(app).Session()
    author = create_author(s, USER, PASSWORD)
    _, token = create_token(s, author.id)
    s.close()
    with testing.serve_in_thread(app, threads=4) as url:
        yield {"url": url, "token": token}
    get_db(app).dispose()


@pytest.fixture(scope="module")
def driver():
    with testing.headless_chromium(window_size=(1280, 1000), profile_prefix="auth-editor-chromium-") as d:
        yield d


def _wait(d, cond, msg):
    return testing.wait_for(d, cond, msg)


def _set_yaml(d, text: str) -> None:
    d.execute_script("var t = document.getElementById('yaml'); t.value = arguments[0];"
                     "t.dispatchEvent(new Event('input'));", text)


def _save(d) -> None:
    d.find_element("id", "save").click()
    _wait(d, lambda drv: drv.execute_script("return document.readyState") == "complete"
          and drv.find_elements("css selector", "h1"), "no page after saving")


def _api(server, path: str) -> bytes:
    req = urllib.request.Request(server["url"] + path, headers={"Authorization": f"Bearer {server['token']}"})
    with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310 - the test's own local server
        return r.read()


def test_author_edits_in_chromium(server, driver):
    d, url = driver, server["url"]
    d.get(f"{url}/author/login")
    d.find_element("id", "username").send_keys(USER)
    d.find_element("id", "password").send_keys(PASSWORD)
    d.find_element("id", "login-submit").click()
    _wait(d, lambda drv: drv.find_elements("id", "question-list"), "login did not reach the list")

    # 1. a question with comments: saved, published, exported byte for byte
    text = _authored()
    d.get(f"{url}/author/new")
    _set_yaml(d, text)
    _save(d)
    _wait(d, lambda drv: drv.find_elements("id", "publish"), "the saved draft has no publish button")
    assert d.find_element("id", "yaml").get_property("value") == text
    d.find_element("id", "publish").click()
    _wait(d, lambda drv: drv.find_elements("id", "retire"), "publishing did not finish")
    assert _api(server, f"/api/v1/export?id={QID}") == text.encode("utf-8")

    # 2. a broken parameter: the error names its line, shown with that line
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("params:"))
    broken = "".join(lines[:at]) + "params:\n  # lost its upper bound\n  p: {uniform: [0.2]}\n" + "".join(
        lines[at + 1:])
    d.get(f"{url}/author/q/{QID}")
    _set_yaml(d, broken)
    _save(d)
    _wait(d, lambda drv: drv.find_elements("id", "save-errors"), "no error report")
    link = d.find_element("css selector", "#save-errors .goto-line")
    assert link.get_attribute("data-line") == str(at + 3)
    assert "p: {uniform: [0.2]}" in d.find_element("css selector", "#save-errors .source-line").text
    link.click()  # the cursor goes to that line
    caret = d.execute_script("var t = document.getElementById('yaml');"
                             "return t.value.slice(0, t.selectionStart).split('\\n').length;")
    assert caret == at + 3

    # 3. a known mistake equal to the correct answer: one failure row listing every seed
    same = text.replace("  mistakes:\n", "  mistakes:\n  - expr: p + p\n    note: same-as-correct\n"
                        "    feedback: {en: Same., zh: 相同。}\n", 1)
    assert same != text
    d.get(f"{url}/author/q/{QID}")
    _set_yaml(d, same)
    _save(d)
    _wait(d, lambda drv: drv.find_elements("id", "selftest-bad"), "the self-test did not fail")
    rows = [r for r in d.find_elements("css selector", "#selftest-report tr.failure")
            if "same-as-correct" in r.text]
    assert len(rows) == 1, [r.text for r in rows]
    seeds = rows[0].find_element("css selector", ".seeds").text
    assert seeds == ", ".join(str(s) for s in range(20))

    # 4. diff v1 and v2, then restore v1 as a new draft
    d.get(f"{url}/author/q/{QID}/history?a=1&b=2")
    diff = d.find_element("id", "diff-yaml").text
    assert "+  - expr: p + p" in diff and "note: same-as-correct" in diff
    assert USER in d.find_element("id", "history").text  # who made the versions
    d.find_element("css selector", "button.restore[data-version='1']").click()
    _wait(d, lambda drv: drv.find_elements("id", "selftest-ok"), "the restored draft did not pass")
    assert "v3" in d.find_element("css selector", "h1").text
    assert d.find_element("id", "yaml").get_property("value") == text

    # 5. retire (with a confirmation) and un-retire
    d.find_element("id", "retire").click()
    _wait(d, lambda drv: drv.find_elements("id", "confirm-retire"), "no confirmation page")
    d.find_element("id", "confirm-retire").click()
    _wait(d, lambda drv: drv.find_elements("id", "unretire"), "no un-retire button after retiring")
    assert QID not in _api(server, "/api/v1/export?format=json").decode()  # learners no longer get it
    d.find_element("id", "unretire").click()
    _wait(d, lambda drv: drv.find_elements("id", "retire"), "un-retiring did not publish again")
    assert _api(server, f"/api/v1/export?id={QID}") == text.encode("utf-8")


def test_author_header_fits_a_phone(server, driver):
    d = driver
    d.set_window_size(375, 800)
    try:
        d.get(f"{server['url']}/author/")
        _wait(d, lambda drv: drv.find_elements("css selector", ".topbar"), "no header")
        width = d.execute_script("return document.documentElement.clientWidth")
        assert d.execute_script("return document.documentElement.scrollWidth") <= width
        bar = d.find_element("css selector", ".topbar").rect
        assert bar["width"] <= width
    finally:
        d.set_window_size(1280, 1000)
