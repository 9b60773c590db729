"""End to end in a real headless Chromium (Debian's chromium + chromium-driver) against a live server.

The server is the real app on a temporary SQLite database, migrated with Alembic and loaded with the
question bank (plus one question full of XSS payloads), served by waitress on a free port of 127.0.0.1.
Selenium drives /usr/bin/chromium through /usr/bin/chromedriver; Selenium Manager never downloads anything.
``scripts/test`` installs the browser (``scripts/install-browser``); without it these tests fail, loudly.

Set ``WEB_SCREENSHOT_DIR`` to keep phone-sized screenshots of the pages (development only).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

PHONE = (375, 812)  # a phone's layout viewport in CSS px (quiz_testing.emulate_phone)
WAIT_S = 20


# ------------------------------------------------------------------ live server

@pytest.fixture(scope="module")
def web_live_server(tmp_path_factory, web_make_app, web_xss_question):
    from quizapp.storage.db import get_db

    tmp = tmp_path_factory.mktemp("web-live")
    app = web_make_app(tmp / "live.sqlite3", questions=None)
    bank = app.config["QUIZ_BANK_PATH"]
    from quizapp.storage.db import get_session
    from quizapp.services import questions as qsvc

    with app.app_context():
        summary = qsvc.load_bank_dir(get_session(), bank)  # raises BankError naming a broken file
        assert summary.added, f"the bank at {bank} holds no questions"
        qsvc.sync_bank(get_session(), [("test:xss", web_xss_question)])
        rows = qsvc.list_questions(get_session())

    with testing.serve_in_thread(app, threads=4, name="web-live-server") as url:
        yield {"url": url, "app": app, "questions": rows}
    get_db(app).dispose()


# ------------------------------------------------------------------ browser

@pytest.fixture(scope="module")
def web_browser():
    with testing.headless_chromium(phone=PHONE, extra_args=("--lang=en-US",), profile_prefix="web-chromium-",
                                   log_browser=True) as driver:
        yield driver


def _wait(driver, condition, message: str, timeout: float = WAIT_S):
    return testing.wait_for(driver, condition, message, timeout)


def _shot(driver, name: str) -> None:
    out = os.environ.get("WEB_SCREENSHOT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(out) / f"{name}.png"))


def _full_shot(driver, name: str) -> None:
    """A screenshot of the whole page at phone width (development only)."""
    out = os.environ.get("WEB_SCREENSHOT_DIR")
    if not out:
        return
    height = driver.execute_script("return document.documentElement.scrollHeight")
    testing.emulate_phone(driver, (PHONE[0], min(max(height + 120, PHONE[1]), 6000)))
    _shot(driver, name)
    testing.emulate_phone(driver, PHONE)


def _assert_phone_layout(driver, what: str) -> None:
    """The page is laid out exactly a phone wide (its layout viewport, ``documentElement.clientWidth``, is
    375 CSS px) and nothing in it is wider (no sideways scrolling)."""
    width = driver.execute_script("return document.documentElement.clientWidth")
    assert width == PHONE[0], f"{what} was laid out {width} px wide, not {PHONE[0]}"
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    assert wide <= PHONE[0], f"{what} is {wide} px wide: wider than a {PHONE[0]} px phone screen"


def _console_errors(driver) -> list[str]:
    try:
        logs = driver.get_log("browser")
    except Exception:  # noqa: BLE001 - logging is a bonus check
        return []
    return [e["message"] for e in logs if e.get("level") == "SEVERE"]


def _pick_question(rows: list[dict]) -> tuple[str, str]:
    """A bank question with a numeric part (the tutorial's Q1 if it has one)."""
    candidates = []
    for row in rows:
        for part in row["data"]["parts"]:
            if part["kind"] == "numeric":
                candidates.append((row["data"].get("ref") != "Q1", row["id"], part["id"]))
                break
    assert candidates, "no bank question has a numeric part"
    _, qid, pid = sorted(candidates)[0]
    return qid, pid


# ------------------------------------------------------------------ tests

def test_web_browser_practice_flow(web_live_server, web_browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC

    driver, base = web_browser, web_live_server["url"]

    # home: every level, the question list
    driver.get(base + "/?lang=en")
    assert driver.find_element(By.ID, "level-L1").is_displayed()
    _assert_phone_layout(driver, "the home page")
    _full_shot(driver, "home-phone")
    qid, pid = _pick_question(web_live_server["questions"])

    driver.get(f"{base}/questions/{qid}?variant=42&lang=en")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
          "quiz.js did not start")
    prompt_maths = driver.find_elements(By.CSS_SELECTOR, "#q-prompt math")
    assert prompt_maths, "the prompt has no MathML"
    assert "#42" in driver.find_element(By.ID, "variant-number").text
    _assert_phone_layout(driver, "the question page")  # nothing overflows a phone screen horizontally

    box = driver.find_element(By.ID, f"answer-{pid}")
    preview = f"#preview-{pid}"

    # a typo: the preview shows the error and marks the column
    box.send_keys("0.5*ln(0.5/0.3")
    _wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f"{preview}.preview-error .error-at")),
          "no error preview for an unbalanced bracket")
    message = driver.find_element(By.CSS_SELECTOR, f"{preview} .preview-message").text
    assert message, "empty error message"
    column = driver.find_element(By.CSS_SELECTOR, f"{preview} .error-source").get_attribute("data-column")
    assert column is not None and column.isdigit()

    # a good answer: the preview shows what it was read as, in MathML
    box.clear()
    box.send_keys("ln(2)/2")
    _wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f"{preview}.preview-ok math")),
          "no MathML preview for ln(2)/2")
    assert "0.346" in driver.find_element(By.CSS_SELECTOR, preview).text
    _shot(driver, "question-preview-phone")

    # pick the first option of any choice part
    for fs in driver.find_elements(By.CSS_SELECTOR, "fieldset.part-choice"):
        option = fs.find_element(By.CSS_SELECTOR, "label.option")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", option)
        option.click()

    submit = driver.find_element(By.ID, "submit")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", submit)
    submit.click()

    # the verdict for each part, then the solution with rendered maths
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
          "no result after submitting")
    verdict = driver.find_element(By.ID, f"verdict-{pid}")
    assert verdict.is_displayed()
    badge = verdict.find_element(By.CSS_SELECTOR, ".badge").text
    assert badge in {"Correct", "Incorrect", "Could not read", "Undecided"}, badge
    assert verdict.find_element(By.CSS_SELECTOR, ".feedback").text.strip()
    score = driver.find_element(By.ID, "score").text
    assert "/" in score
    solution = driver.find_element(By.ID, "solution")
    if not solution.is_displayed():  # a wrong first answer: the solution waits for a correct one, the last try or a request
        show = driver.find_element(By.ID, "show-solution")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", show)
        show.click()
        driver.find_element(By.ID, "solution-confirm-yes").click()  # it asks first
        _wait(driver, lambda d: solution.is_displayed(), "Show solution did not show it")
    text = solution.text
    assert "Solution" in text and "Key points" in text and "Expected answers" in text
    if driver.find_elements(By.CSS_SELECTOR, "#solution .worked"):
        assert driver.find_elements(By.CSS_SELECTOR, "#solution math"), "worked solution without MathML"
    _assert_phone_layout(driver, "the graded page")
    _full_shot(driver, "question-graded-phone")

    # the attempt counts on the home page
    driver.get(base + "/?lang=en")
    item = driver.find_element(By.CSS_SELECTOR, f'li[data-qid="{qid}"] .result')
    assert "Last result" in item.text

    # 中文 / English: the switch keeps the page and the variant
    driver.get(f"{base}/questions/{qid}?variant=42&lang=en")
    driver.find_element(By.ID, "lang-switch").click()
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN",
          "the language switch did not switch to Chinese")
    assert driver.find_element(By.ID, "submit").text == "提交"
    assert "#42" in driver.find_element(By.ID, "variant-number").text
    _shot(driver, "question-zh-phone")
    driver.find_element(By.ID, "lang-switch").click()
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en",
          "the language switch did not switch back to English")

    # "new variant" gives another variant of the same question
    driver.find_element(By.ID, "new-variant").click()
    _wait(driver, lambda d: "variant=" in d.current_url and "variant=42" not in d.current_url,
          "new variant did not change the variant")
    assert f"/questions/{qid}" in driver.current_url
    # the page was served at once with the variant the server chose; the address bar now names it, so a
    # reload shows the same numbers
    shown = driver.find_element(By.ID, "variant-number").text
    assert "prev=" not in driver.current_url and driver.current_url.endswith("variant=" + shown.lstrip("#"))
    driver.refresh()
    _wait(driver, lambda d: d.find_element(By.ID, "variant-number").text == shown, "a reload changed the variant")

    # (the XSS question's harmless <img src="x"> is a 404 on the home page: not a script error)
    errors = [e for e in _console_errors(driver) if "Failed to load resource" not in e]
    assert not errors, f"browser console errors (a CSP violation would show here): {errors}"


def test_web_browser_authored_xss_is_inert(web_live_server, web_browser):
    """The content-safety check for authored text, in the real browser: payloads in title, prompt, options,
    hint, feedback and solution never run, whether rendered by the page or by /render after submitting."""
    from selenium.webdriver.common.by import By

    driver, base = web_browser, web_live_server["url"]
    driver.get(f"{base}/questions/web-t-xss?variant=0&lang=en")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
          "quiz.js did not start")
    for link in driver.find_elements(By.CSS_SELECTOR, "#question a"):
        href = (link.get_attribute("href") or "").lower()
        assert not href.startswith("javascript:"), href
    for el in driver.find_elements(By.CSS_SELECTOR, "#q-prompt a, #q-prompt math *, #q-prompt span"):
        el_text = el.get_attribute("outerHTML").lower()
        assert "onclick" not in el_text and "onmouseover" not in el_text
    # poke everything a payload could hook into
    for el in driver.find_elements(By.CSS_SELECTOR, "#q-prompt *"):
        try:
            driver.execute_script(
                "arguments[0].dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));", el)
        except Exception:  # noqa: BLE001 - stale or hidden elements are fine
            pass
    driver.find_element(By.CSS_SELECTOR, "label.option").click()
    driver.find_element(By.ID, "submit").click()
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
          "no result after submitting")
    # Let anything a payload queued run first: wait (in the page, by its event loop, not a clock) for the
    # load event, then two animation frames and a task after it.
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const go = () => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)));"
        "if (document.readyState === 'complete') go(); else addEventListener('load', go);")
    assert driver.execute_script("return typeof window.__xss") == "undefined", "an authored payload ran"
    assert not driver.find_elements(By.CSS_SELECTOR, "#question script, #question iframe, #question svg")
    assert "kp" in driver.find_element(By.ID, "solution").text


def test_web_browser_numeric_precision_and_preview_warning(web_live_server, web_browser):
    """A numeric part states its precision under the input; a too-coarse answer is warned in the preview."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC

    driver, base = web_browser, web_live_server["url"]
    driver.get(f"{base}/questions/q16-k2-bias?variant=7&lang=en")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
          "quiz.js did not start")
    line = driver.find_element(By.ID, "precision-ek2")
    assert line.is_displayed() and line.text.startswith("Give at least 5 significant figures"), line.text
    box = driver.find_element(By.ID, "answer-ek2")
    box.send_keys("0.03")
    _wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "#preview-ek2.preview-ok .preview-warn")),
          "no precision warning for a one-figure answer")
    warn = driver.find_element(By.CSS_SELECTOR, "#preview-ek2 .preview-warn").text
    assert "0.03 has 1 significant figure" in warn and "at least 5" in warn, warn
    box.clear()
    box.send_keys("0.012345")
    _wait(driver, lambda d: d.find_element(By.ID, "preview-ek2").get_attribute("data-state") == "done"
          and "0.012345" in d.find_element(By.ID, "preview-ek2").text, "no preview for a five-figure answer")
    assert not driver.find_elements(By.CSS_SELECTOR, "#preview-ek2 .preview-warn")
