"""The mock interview's countdown in headless Chromium against a live server whose clock the test moves
(``MOCK_CLOCK``): the page starts from the seconds the server says are left, counts down, says "one
minute left" and "time is up" in its polite live region (the ticking clock itself is a role=timer,
which screen readers do not announce), and logs no script error. Like the other browser tests this needs /usr/bin/chromium and chromedriver
(``scripts/install-browser``) and fails loudly without them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the small tagged bank

import bank_fixture  # noqa: E402

import quiz_testing as testing  # noqa: E402
from quizapp.storage.db import get_db  # noqa: E402

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
PHONE = (375, 812)
BUDGET = 120  # every level, so whichever question is drawn first has this budget
MINUTE = "One minute left for this question."
UP = "Time is up for this question: an answer sent now counts as over time."


class FakeClock:
    def __init__(self) -> None:
        self.now = 2_000_000.0

    def __call__(self) -> float:
        return self.now


def _serious_axe_violations(driver) -> list[dict]:
    assert AXE.is_file(), f"{AXE} missing: run scripts/setup (npm ci in frontend/)"
    driver.set_script_timeout(60)
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e)}]));", AXE_TAGS)
    return [v for v in result if v["impact"] in ("serious", "critical")]


@pytest.fixture(scope="module")
def mock_live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mock-live")
    clock = FakeClock()
    app = testing.make_app(tmp, MOCK_CLOCK=clock, MOCK_SECONDS_BY_LEVEL={"L1": BUDGET, "L2": BUDGET, "L3": BUDGET})
    bank_fixture.load(app, tmp / "bank")
    with testing.serve_in_thread(app, threads=4, name="mock-live-server") as url:
        yield url, clock
    get_db(app).dispose()


def test_countdown_announces_the_last_minute_and_the_end(mock_live):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, clock = mock_live
    with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="mock-chromium-",
                                   log_browser=True) as driver:
        driver.get(url + "/mock")
        Select(driver.find_element(By.ID, "mock-length")).select_by_value("3")
        driver.find_element(By.CSS_SELECTOR, "#mock-setup button[type=submit]").click()
        testing.wait_for(driver, lambda d: d.current_url.endswith("/mock/1"), "mock question 1")
        timer = driver.find_element(By.ID, "mock-timer")
        assert timer.get_attribute("data-remaining") == str(BUDGET)
        assert driver.find_element(By.ID, "mock-timer-status").get_attribute("aria-live") == "polite"
        assert driver.find_element(By.ID, "mock-timer-clock").get_attribute("role") == "timer"
        assert _serious_axe_violations(driver) == []

        clock.now += BUDGET - 61  # the server says 61 s are left; the page counts on from there
        driver.refresh()
        assert driver.find_element(By.ID, "mock-timer").get_attribute("data-remaining") == "61"
        testing.wait_for(driver, lambda d: d.find_element(By.ID, "mock-timer-status").text == MINUTE,
                         "the one-minute announcement")
        minutes, seconds = driver.find_element(By.ID, "mock-timer-clock").text.split(":")
        assert 0 < int(minutes) * 60 + int(seconds) <= 60 and len(seconds) == 2  # counted down, m:ss

        clock.now += 60  # one second left by the server's clock
        driver.refresh()
        testing.wait_for(driver, lambda d: d.find_element(By.ID, "mock-timer-status").text == UP,
                         "the time-up announcement")
        assert "mock-timer-up" in driver.find_element(By.ID, "mock-timer").get_attribute("class")
        assert driver.find_element(By.ID, "mock-timer-clock").text == "0:00"
        testing.emulate_phone(driver, PHONE)  # the time-up state at phone width: readable, nothing scrolls sideways
        assert driver.execute_script("return document.documentElement.clientWidth") == PHONE[0]
        assert _serious_axe_violations(driver) == []
        assert driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == [], errors
