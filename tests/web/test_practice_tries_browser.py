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


def _wait(driver, condition, message):
    return testing.wait_for(driver, condition, message, WAIT_S)


def _open(driver, base, variant):
    testing.open_question(driver, base, QID, variant, timeout=WAIT_S)


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


def test_another_variant_keeps_the_count_until_the_solution(practice_server, practice_browser):
    from selenium.webdriver.common.by import By

    _open(practice_browser, practice_server, 41)
    _submit_wrong(practice_browser)
    assert "Tries left before the solution: 2" in _tries(practice_browser)
    _open(practice_browser, practice_server, 42)  # the gaming path: a new variant before the last try
    _wait(practice_browser, lambda d: "Tries left before the solution: 2" in _tries(d), "the count was reset")
    _submit_wrong(practice_browser)
    assert "Tries left before the solution: 1" in _tries(practice_browser)
    assert not practice_browser.find_element(By.ID, "solution").is_displayed()
    _open(practice_browser, practice_server, 43)
    _submit_wrong(practice_browser)
    _wait(practice_browser, lambda d: d.find_element(By.ID, "solution").is_displayed(),
          "no solution after the third wrong answer over three variants")


def test_interpreted_as_has_spoken_text(practice_server, practice_browser):
    from selenium.webdriver.common.by import By

    _open(practice_browser, practice_server, 44)
    practice_browser.find_element(By.ID, "answer-a").send_keys("1/4")
    spoken = _wait(practice_browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview-a .sr-only"),
                   "no spoken text")
    assert practice_browser.execute_script("return arguments[0].textContent", spoken[0]) == "0.25"  # what is drawn: the value read, 1/4
    drawn = practice_browser.find_element(By.CSS_SELECTOR, "#preview-a math")
    assert drawn.get_attribute("aria-hidden") == "true"
