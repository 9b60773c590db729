"""In a real headless Chromium: tries are counted per question, so opening another variant before the
solution was shown keeps the count (the page reads it back); and the "interpreted as" formula carries its
spoken text for screen readers beside the drawn MathML, which is hidden from them."""

from __future__ import annotations

import pytest

import quiz_testing as testing
from quiz_testing import SAMPLE_QUESTION

pytestmark = pytest.mark.browser

QID = SAMPLE_QUESTION["id"]
WAIT_S = 20


@pytest.fixture(scope="module")
def server(tmp_path_factory, web_make_app):
    from quizapp.db import get_db

    app = web_make_app(tmp_path_factory.mktemp("tries-live") / "live.sqlite3", questions=[SAMPLE_QUESTION])
    with testing.serve_in_thread(app, threads=4, name="tries-live-server") as url:
        yield url
    get_db(app).dispose()


@pytest.fixture(scope="module")
def browser():
    with testing.headless_chromium(window_size=(1200, 900), extra_args=("--lang=en-US",),
                                   profile_prefix="tries-chromium-") as driver:
        yield driver


def _wait(driver, condition, message):
    return testing.wait_for(driver, condition, message, WAIT_S)


def _open(driver, base, variant):
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/questions/{QID}?variant={variant}&lang=en")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
          "quiz.js did not start")


def _submit_wrong(driver):
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "answer-a").send_keys("0")
    option = driver.find_element(By.CSS_SELECTOR, '#part-b input[value="yes"]')
    driver.execute_script("arguments[0].click()", option)
    node = driver.find_element(By.ID, "submit")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
          "no result after submitting")


def _tries(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, "tries").text


def test_another_variant_keeps_the_count_until_the_solution(server, browser):
    from selenium.webdriver.common.by import By

    _open(browser, server, 41)
    _submit_wrong(browser)
    assert "Tries left before the solution: 2" in _tries(browser)
    _open(browser, server, 42)  # the gaming path: a new variant before the last try
    _wait(browser, lambda d: "Tries left before the solution: 2" in _tries(d), "the count was reset")
    _submit_wrong(browser)
    assert "Tries left before the solution: 1" in _tries(browser)
    assert not browser.find_element(By.ID, "solution").is_displayed()
    _open(browser, server, 43)
    _submit_wrong(browser)
    _wait(browser, lambda d: d.find_element(By.ID, "solution").is_displayed(),
          "no solution after the third wrong answer over three variants")


def test_interpreted_as_has_spoken_text(server, browser):
    from selenium.webdriver.common.by import By

    _open(browser, server, 44)
    browser.find_element(By.ID, "answer-a").send_keys("1/4")
    spoken = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview-a .sr-only"), "no spoken text")
    assert browser.execute_script("return arguments[0].textContent", spoken[0]) == "0.25"  # what is drawn: the value read, 1/4
    drawn = browser.find_element(By.CSS_SELECTOR, "#preview-a math")
    assert drawn.get_attribute("aria-hidden") == "true"
