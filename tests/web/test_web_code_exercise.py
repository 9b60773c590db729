"""The k3 code exercise end to end in headless Chromium against a live server: the CodeMirror editor (served
by the app from quizapp/static/vendor/, built by scripts/setup), typing a function, Check on the visible
cases, Submit on the hidden ones with the first failing case's diff, and the draft surviving a reload.

Like the other browser tests this needs /usr/bin/chromium and chromedriver (``scripts/install-browser``)
and fails loudly without them; it also needs the editor bundle (``scripts/setup`` builds it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "quizapp" / "static" / "vendor" / "code-editor.js"
QID, PID = "code-k3-per-token", "implement"
PHONE = (375, 812)  # a phone's layout viewport in CSS px (quiz_testing.emulate_phone)
WAIT_S = 30
# One-line bodies, so that typing them is not changed by the editor's auto-indentation.
GOOD = ("import torch\n"
        "def k3(log_prob, ref_log_prob): return torch.exp(ref_log_prob - log_prob) - (ref_log_prob - log_prob) - 1")
# Every value negated (log r + 1 - r): fails the first case it meets.
BUGGY = ("import torch\n"
         "def k3(log_prob, ref_log_prob): return (ref_log_prob - log_prob) + 1 - torch.exp(ref_log_prob - log_prob)")


@pytest.fixture(scope="module")
def code_live_server(tmp_path_factory, web_make_app):
    from checkers.bank import load_question_file
    from quizapp.storage.db import get_db

    assert BUNDLE.is_file(), f"{BUNDLE} is missing: run scripts/setup (npm ci + the esbuild bundle in frontend/)"
    loaded = load_question_file(ROOT / "questions" / "L1" / f"{QID}.yaml")
    question = loaded if isinstance(loaded, dict) else loaded[0]
    app = web_make_app(tmp_path_factory.mktemp("code-live") / "live.sqlite3", questions=[question])
    with testing.serve_in_thread(app, threads=4, name="code-live-server") as url:
        yield url
    get_db(app).dispose()


@pytest.fixture(scope="module")
def code_browser():
    with testing.headless_chromium(phone=PHONE, extra_args=("--lang=en-US",), profile_prefix="code-chromium-",
                                   log_browser=True) as driver:
        yield driver


def _wait(driver, condition, message: str):
    return testing.wait_for(driver, condition, message, WAIT_S)


def _source(driver) -> str:
    """The editor's text, as the page submits it (the editor keeps the hidden textarea in sync)."""
    return driver.execute_script(f"return document.getElementById('answer-{PID}').value")


def _open(driver, base: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/questions/{QID}?variant=0&lang=en")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
          "quiz.js did not start")
    _wait(driver, lambda d: d.find_element(By.ID, f"code-widget-{PID}").get_attribute("data-ready") == "1"
          and _editor_content(d) is not None, "the code editor was not mounted (is the bundle served?)")


def _editor_content(driver):
    """The editor's editable element (CodeMirror lives in a shadow root under .code-editor-host)."""
    return driver.execute_script(
        f"const host = document.querySelector('#part-{PID} .code-editor-host');"
        "return host && host.shadowRoot ? host.shadowRoot.querySelector('.cm-content') : null;")


def _replace_text(driver, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    content = _editor_content(driver)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", content)
    content.click()
    # select everything through the editor (a Ctrl+A chord is unreliable in headless Chromium), then type
    driver.execute_script(f"const v = document.getElementById('answer-{PID}').quizEditor;"
                          "v.dispatch({selection: {anchor: 0, head: v.state.doc.length}}); v.focus();")
    _keys(driver, Keys.DELETE, text)


def _keys(driver, *keys) -> None:
    """Type into whatever has the focus (an element's send_keys would first move the caret to its end)."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def _check(driver) -> None:
    from selenium.webdriver.common.by import By

    report = driver.find_element(By.ID, f"code-report-{PID}")
    driver.execute_script("arguments[0].removeAttribute('data-status')", report)
    button = driver.find_element(By.ID, f"code-check-{PID}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    _wait(driver, lambda d: report.get_attribute("data-status"), "Check gave no report")


def _submit(driver) -> None:
    from selenium.webdriver.common.by import By

    submit = driver.find_element(By.ID, "submit")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", submit)
    if driver.find_element(By.ID, "question").get_attribute("data-state") == "graded":
        submit.click()  # "Try again" clears the verdicts and keeps the answer; the next click submits
    driver.execute_script("document.getElementById('question').removeAttribute('data-state')")
    submit.click()
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
          "no result after submitting")


def test_code_exercise_editor_check_submit_and_draft(code_live_server, code_browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver, base = code_browser, code_live_server
    driver.get(base + "/?lang=en")
    driver.execute_script("window.localStorage.clear()")   # no draft from an earlier run of this profile
    _open(driver, base)

    # the starter is in the editor: Python highlighted, line numbers, labelled with its keyboard hint
    assert "def k3(log_prob, ref_log_prob):" in _source(driver)
    assert not driver.find_element(By.ID, f"answer-{PID}").is_displayed()   # the editor replaced it
    content = _editor_content(driver)
    assert content.get_attribute("aria-label").startswith("Python code")
    hint = content.get_attribute("aria-description")
    assert "Escape" in hint and "Tab" in hint and hint == driver.find_element(By.ID, f"code-keys-{PID}").text
    assert driver.execute_script("return arguments[0].closest('.cm-editor')"
                                 ".querySelectorAll('.cm-lineNumbers .cm-gutterElement').length", content) > 3
    keyword = driver.execute_script(
        "const spans = [...arguments[0].querySelectorAll('span')];"
        "const s = spans.find(x => x.textContent === 'def'); return s ? getComputedStyle(s).color : null;",
        content)
    plain = driver.execute_script("return getComputedStyle(arguments[0]).color", content)
    assert keyword and keyword != plain, "'def' is not highlighted"
    # laid out a phone wide (the layout viewport is 375 CSS px), and the editor does not make it scroll sideways
    assert driver.execute_script("return document.documentElement.clientWidth") == PHONE[0]
    assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]

    # Tab indents inside the editor; Escape then Tab moves the focus out (to Check)
    _replace_text(driver, "x")
    _keys(driver, Keys.HOME, Keys.TAB)
    assert _source(driver) == "    x"
    _keys(driver, Keys.ESCAPE, Keys.TAB)
    assert driver.execute_script("return document.activeElement.id") == f"code-check-{PID}"

    # a correct function: Check passes both visible cases (no attempt used), Submit is correct
    _replace_text(driver, GOOD)
    assert _source(driver) == GOOD
    _check(driver)
    report = driver.find_element(By.ID, f"code-report-{PID}")
    assert report.get_attribute("data-status") == "correct"
    cases = report.find_elements(By.CSS_SELECTOR, "li.code-case")
    assert [c.get_attribute("data-case") for c in cases] == ["visible-1", "visible-2"]
    assert all("code-case-pass" in c.get_attribute("class") for c in cases)
    _submit(driver)
    verdict = driver.find_element(By.ID, f"verdict-{PID}")
    assert verdict.find_element(By.CSS_SELECTOR, ".badge").text == "Correct"

    # a buggy version: Check shows the failing visible case with its inputs and expected vs got
    _replace_text(driver, BUGGY)
    _check(driver)
    assert report.get_attribute("data-status") == "incorrect"
    failed = report.find_element(By.CSS_SELECTOR, "li.code-case-fail")
    assert failed.get_attribute("data-case") == "visible-1"
    diff = report.find_element(By.CSS_SELECTOR, ".code-failure .code-diff").text
    assert diff.startswith("kl[") and "expected" in diff and "got" in diff
    assert "log_prob = [[" in report.find_element(By.CSS_SELECTOR, ".code-failure .code-inputs pre").text
    # Submit grades the hidden cases: incorrect, naming the first failing case with its diff
    _submit(driver)
    verdict = driver.find_element(By.ID, f"verdict-{PID}")
    assert verdict.find_element(By.CSS_SELECTOR, ".badge").text == "Incorrect"
    feedback = verdict.find_element(By.CSS_SELECTOR, ".feedback").text
    assert "random inputs" in feedback and "expected" in feedback and "wrong sign" in feedback
    hidden = verdict.find_element(By.CSS_SELECTOR, ".code-failure .code-diff").text
    assert hidden.startswith("kl[") and "expected" in hidden and "got" in hidden

    # the draft survives a reload
    driver.refresh()
    _open(driver, base)
    assert _source(driver) == BUGGY
    assert driver.find_element(By.ID, f"code-draft-{PID}").text == "Your last draft was restored."
    assert "(ref_log_prob - log_prob) + 1" in _editor_content(driver).text

    errors = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"
              and "favicon" not in e["message"]]
    assert not errors, f"browser console errors (a CSP violation would show here): {errors}"
