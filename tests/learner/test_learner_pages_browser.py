"""In headless Chromium against a live server, what anchors' users expect of the learner pages: the block
of previous attempts updates after a submit without a reload, its rows and History's open the attempt
with the answers given and verdicts, times are shown in the browser's time zone (UTC kept as the title),
and a due question is opened from the review list and rated by the learner."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

QID = "lp-one"
PHONE = (375, 812)  # a phone's layout viewport in CSS px (quiz_testing.emulate_phone)
ZONE = "Asia/Kathmandu"  # UTC+05:45: no chance of matching UTC by accident, even in minutes


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    from quizapp.storage.db import get_db

    tmp = tmp_path_factory.mktemp("learner-pages-live")
    app = testing.make_app(tmp)
    testing.load_sample(app, testing.sample_question(id=QID))
    with testing.serve_in_thread(app, threads=4, name="learner-pages-server") as url:
        yield url
    get_db(app).dispose()


def _submit(driver, right_a: str | None) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "answer-a").send_keys(right_a or "0")
    option = driver.find_element(By.ID, "answer-b-no" if right_a else "answer-b-yes")
    driver.execute_script("arguments[0].click()", option)
    driver.execute_script("arguments[0].click()", driver.find_element(By.ID, "submit"))
    testing.wait_for(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
                     "no result after submitting")


def test_memory_updates_attempt_opens_and_times_are_local(live, lm):
    from selenium.webdriver.common.by import By

    with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="learner-pages-") as driver:
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
        testing.open_question(driver, live, QID, 3)
        assert "No attempts yet." in driver.find_element(By.ID, "learner-memory").text
        _submit(driver, None)
        testing.wait_for(driver, lambda d: d.find_element(By.ID, "learner-memory").get_attribute("data-updated")
                         == "1", "the previous attempts did not update after the submit")
        memory = driver.find_element(By.ID, "learner-memory")
        assert "Last: 0 / 2" in memory.text and "1 attempts" in memory.text

        # the time shown is the instant in the browser's zone; the UTC text stays as the title
        stamp = memory.find_element(By.CSS_SELECTOR, "time.local-time")
        testing.wait_for(driver, lambda d: stamp.get_attribute("data-local") == "1", "time not localised")
        instant = datetime.fromisoformat(stamp.get_attribute("datetime").replace("Z", "+00:00"))
        local = instant.astimezone(ZoneInfo(ZONE))
        assert stamp.get_attribute("title") == instant.strftime("%Y-%m-%d %H:%M UTC")
        assert f"{local.minute:02d}" in stamp.text and str(local.day) in stamp.text
        assert "GMT+5:45" in stamp.text and "UTC" not in stamp.text

        # the memory row opens the attempt: answers and verdicts
        memory.find_element(By.CSS_SELECTOR, ".memory-list a").click()
        testing.wait_for(driver, lambda d: "/history/" in d.current_url, "the row did not open the attempt")
        part_a = driver.find_element(By.ID, "attempt-part-a")
        assert part_a.find_element(By.CSS_SELECTOR, ".attempt-answer code").text == "0"
        assert part_a.find_element(By.CSS_SELECTOR, ".badge").text == "Incorrect"
        assert "Yes" in driver.find_element(By.ID, "attempt-part-b").find_element(By.CSS_SELECTOR, ".attempt-options").text
        assert "0 / 2" in driver.find_element(By.ID, "attempt-score").text

        # a second answer without a reload: the block shows both
        testing.open_question(driver, live, QID, 4)
        _submit(driver, lm.right_answers(4)["a"])
        testing.wait_for(driver, lambda d: "2 attempts" in d.find_element(By.ID, "learner-memory").text,
                         "the second attempt did not appear")
        assert "Best: 2 / 2" in driver.find_element(By.ID, "learner-memory").text

        # History: the rows open their attempts, in local time too
        driver.get(f"{live}/history")
        rows = driver.find_elements(By.CSS_SELECTOR, "#history-table a.attempt-open")
        assert len(rows) == 2
        testing.wait_for(driver, lambda d: all(t.get_attribute("data-local") == "1"
                                               for t in d.find_elements(By.CSS_SELECTOR, "time.local-time")),
                         "History times not localised")
        rows[0].click()
        testing.wait_for(driver, lambda d: "/history/" in d.current_url, "the History row did not open")
        assert driver.find_element(By.ID, "attempt-part-a").get_attribute("data-status") == "correct"


AXE = Path(__file__).resolve().parents[2] / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def _axe(driver) -> list[dict]:
    """Serious or critical WCAG 2.2 A/AA violations axe-core finds on the page (as tests/a11y does)."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3)"
        ".map(n => n.target.join(' '))}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', nodes: [String(e)]}]));", AXE_TAGS)
    return [v for v in result if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_attempt_and_review_pages_pass_axe_at_both_widths(live, lm, theme):
    assert AXE.is_file(), f"{AXE} is missing: run scripts/setup (npm ci in frontend/)"
    with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="learner-axe-") as driver:
        if theme == "dark":
            driver.get(f"{live}/appearance?theme=dark&next=/")
        testing.open_question(driver, live, QID, 5)
        _submit(driver, None)
        testing.wait_for(driver, lambda d: d.find_element("id", "learner-memory").get_attribute("data-updated")
                         == "1", "the previous attempts did not update")
        attempt = driver.find_element("css selector", "#learner-memory .memory-list a").get_attribute("href")
        pages = {"attempt": attempt, "attempt-zh": attempt + "?lang=zh",
                 "question-review": f"{live}/questions/{QID}?variant=6&review=1", "review": f"{live}/review"}
        for phone in (None, PHONE):  # the desktop window (1280 px), then a phone's 375 CSS px
            testing.emulate_phone(driver, phone)
            width = phone[0] if phone else "desktop"
            for name, url in pages.items():
                driver.get(url)
                testing.wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete",
                                 f"{name} loaded")
                laid_out = driver.execute_script("return document.documentElement.clientWidth")
                assert phone is None or laid_out == phone[0], f"{name} was laid out {laid_out} px wide, not {width}"
                assert _axe(driver) == [], (name, width)
                overflow = driver.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at {laid_out} px"


def test_due_item_opens_from_the_list_and_the_learner_rates_it(live, lm, monkeypatch):
    """Anki's loop: the due question is a link in Review; it opens at a new variant in review mode, where the
    learner rates it (Good); FSRS moves it out of the due list."""
    from datetime import timedelta, timezone

    from selenium.webdriver.common.by import By

    from quizapp.study import clock as study_clock

    with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="learner-rate-") as driver:
        testing.open_question(driver, live, QID, 2)
        _submit(driver, None)  # wrong: Again, due again in a minute
        later = datetime.now(timezone.utc) + timedelta(minutes=10)
        monkeypatch.setattr(study_clock, "now", lambda: later)  # the live server runs in this process
        driver.get(f"{live}/review")
        link = driver.find_element(By.CSS_SELECTOR, "#review-due a.review-open")
        link.click()
        testing.wait_for(driver, lambda d: "review=1" in d.current_url, "the due item did not open")
        assert "variant=" in driver.current_url
        form = driver.find_element(By.ID, "self-rate")
        button = form.find_element(By.CSS_SELECTOR, "button[value=good]")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        testing.wait_for(driver, lambda d: d.current_url.rstrip("/").endswith("/review"),
                         "rating did not lead back to Review (nothing else is due)")
        assert driver.find_elements(By.CSS_SELECTOR, "#review-due li") == []
        assert "Due now: 0" in driver.find_element(By.ID, "review-counts").text
