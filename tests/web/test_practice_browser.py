"""The attempt policy and hints in a real headless Chromium: a wrong first answer keeps the solution
hidden and offers a hint; "Try again" keeps the answer; the third wrong answer, or "Show solution",
reveals the solution."""

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


def _click(driver, element_id):
    from selenium.webdriver.common.by import By

    node = driver.find_element(By.ID, element_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()


def _submit_wrong(driver):
    from selenium.webdriver.common.by import By

    state = lambda d: d.find_element(By.ID, "question").get_attribute("data-state")  # noqa: E731
    if state(driver) == "graded":
        _click(driver, "submit")  # "Try again": clears the verdicts, keeps the answers
        _wait(driver, lambda d: state(d) == "editing", "Try again did not clear the verdict")
        assert not driver.find_element(By.ID, "verdict-a").is_displayed()
        assert driver.find_element(By.ID, "answer-a").get_attribute("value") == "0", "the answer was not kept"
    else:
        driver.find_element(By.ID, "answer-a").send_keys("0")
        option = driver.find_element(By.CSS_SELECTOR, '#part-b input[value="yes"]')
        driver.execute_script("arguments[0].click()", option)
    _click(driver, "submit")
    _wait(driver, lambda d: state(d) == "graded", "no result after submitting")
    assert driver.find_element(By.CSS_SELECTOR, "#verdict-a .badge").text == "Incorrect"


def test_wrong_answers_then_the_solution(practice_server, practice_browser):
    from selenium.webdriver.common.by import By

    driver = practice_browser
    _open(driver, practice_server, 21)
    # human part titles: the authored one, else "Part 2" -- never the internal id
    legends = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "fieldset.part legend")]
    assert legends == ["Doubling", "Part 2"]
    _submit_wrong(driver)
    solution = driver.find_element(By.ID, "solution")
    assert not solution.is_displayed(), "the solution was shown after a first wrong answer"
    assert "Tries left before the solution: 2" in driver.find_element(By.ID, "tries").text
    # a hint is offered: the gentlest first
    _click(driver, "hint-btn-a")
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hint-list-a li"), "no hint shown")
    assert driver.find_element(By.CSS_SELECTOR, "#hint-list-a li").text.startswith("Read the value")
    assert "80%" in driver.find_element(By.ID, "hint-note-a").text
    _submit_wrong(driver)
    assert not solution.is_displayed(), "the solution was shown after a second wrong answer"
    _submit_wrong(driver)
    _wait(driver, lambda d: solution.is_displayed(), "no solution after the third wrong answer")
    assert "Key points" in solution.text and "Expected answers" in solution.text
    assert "No tries left" in driver.find_element(By.ID, "tries").text
    # back on the same variant: the hint shown and the solution come back
    _open(driver, practice_server, 21)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#hint-list-a li")) == 1
    assert driver.find_element(By.ID, "solution").is_displayed()


def test_show_solution_reveals_it(practice_server, practice_browser):
    from selenium.webdriver.common.by import By

    driver = practice_browser
    _open(driver, practice_server, 22)
    _submit_wrong(driver)
    solution = driver.find_element(By.ID, "solution")
    assert not solution.is_displayed()
    _click(driver, "show-solution")
    _click(driver, "solution-confirm-yes")  # it asks first (tests/web/test_lost_work_browser.py)
    _wait(driver, lambda d: solution.is_displayed(), "Show solution did not show it")
    assert "Key points" in solution.text
    assert "asked for the solution" in driver.find_element(By.ID, "tries").text
