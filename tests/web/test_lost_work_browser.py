"""Nothing a learner did is lost by moving around, in a real headless Chromium:

- a question opened without a variant (from the list, "New variant") keeps its variant, and the answers
  typed but not sent, through a language switch and a colour switch; a submitted attempt forgets them;
- "Continue where you left off" says so when nothing was answered yet, and otherwise reopens the question
  at the variant last answered;
- "Show solution" asks first: Escape or Cancel keeps it hidden, "Yes, show it" (keyboard) shows it, in
  English and Chinese.
"""

from __future__ import annotations

import re

import pytest

import quiz_testing as testing
from quiz_testing import SAMPLE_QUESTION

pytestmark = pytest.mark.browser

QID = SAMPLE_QUESTION["id"]
WAIT_S = 20


def _wait(driver, condition, message):
    return testing.wait_for(driver, condition, message, WAIT_S)


def _ready(driver) -> None:
    from selenium.webdriver.common.by import By

    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
          "quiz.js did not start")


def _variant(driver) -> int:
    from selenium.webdriver.common.by import By

    return int(driver.find_element(By.ID, "variant-number").text.lstrip("#"))


def _click(driver, element_id: str) -> None:
    from selenium.webdriver.common.by import By

    node = driver.find_element(By.ID, element_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()


def _type_answers(driver, number: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, "answer-a")
    field.clear()
    field.send_keys(number)
    option = driver.find_element(By.CSS_SELECTOR, '#part-b input[value="yes"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", option)
    option.click()


def _assert_kept(driver, variant: int, number: str, where: str) -> None:
    from selenium.webdriver.common.by import By

    _ready(driver)
    assert _variant(driver) == variant, f"{where}: another variant was drawn"
    assert re.search(rf"[?&]variant={variant}(&|$)", driver.current_url), driver.current_url
    assert driver.find_element(By.ID, "answer-a").get_attribute("value") == number, f"{where}: typed answer lost"
    assert driver.find_element(By.CSS_SELECTOR, '#part-b input[value="yes"]').is_selected(), \
        f"{where}: chosen option lost"
    # the restored answer is previewed as if typed
    _wait(driver, lambda d: d.find_element(By.ID, "preview-a").get_attribute("data-state") == "done",
          f"{where}: no preview of the restored answer")


def _switch_and_check(driver, variant: int, number: str) -> None:
    """Language there and back, then the colour scheme: the variant and the answers stay."""
    from selenium.webdriver.common.by import By

    _click(driver, "lang-switch")
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN",
          "the language switch did not switch to Chinese")
    _assert_kept(driver, variant, number, "after switching to Chinese")
    assert driver.find_element(By.ID, "submit").text == "提交"
    theme = lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("data-theme")  # noqa: E731
    before = theme(driver)
    _click(driver, "theme-switch")
    _wait(driver, lambda d: theme(d) != before, "the colour switch did not change the colours")
    _assert_kept(driver, variant, number, "after switching colours")
    _click(driver, "lang-switch")
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en",
          "the language switch did not switch back to English")
    _assert_kept(driver, variant, number, "after switching back to English")


def test_variant_and_typed_answers_survive_language_and_colour_switches(practice_server, practice_browser):
    from selenium.webdriver.common.by import By

    driver = practice_browser
    # from the list: no variant in the link, the server draws one
    driver.get(f"{practice_server}/?lang=en")
    link = driver.find_element(By.CSS_SELECTOR, f'a[href="/questions/{QID}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    _ready(driver)
    first = _variant(driver)
    _type_answers(driver, "12.5")
    _switch_and_check(driver, first, "12.5")

    # "New variant": another drawn variant, kept the same way; the first variant's answers are its own
    _click(driver, "new-variant")
    _wait(driver, lambda d: _variant(d) != first, "New variant kept the same numbers")
    _ready(driver)
    second = _variant(driver)
    assert driver.find_element(By.ID, "answer-a").get_attribute("value") == "", "answers leaked across variants"
    _type_answers(driver, "7")
    _switch_and_check(driver, second, "7")

    # a submitted attempt forgets the unsent answers: a reload shows empty fields
    _click(driver, "submit")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
          "no result after submitting")
    key = f"quiz-answers:{QID}:{second}"
    assert driver.execute_script("return window.sessionStorage.getItem(arguments[0])", key) is None
    driver.refresh()
    _ready(driver)
    assert _variant(driver) == second
    assert driver.find_element(By.ID, "answer-a").get_attribute("value") == ""
    # the first variant's unsent answers are still there when it is opened again
    testing.open_question(driver, practice_server, QID, first, timeout=WAIT_S)
    assert driver.find_element(By.ID, "answer-a").get_attribute("value") == "12.5"


def test_continue_says_so_then_returns_to_the_same_variant(practice_server, practice_browser):
    from selenium.webdriver.common.by import By

    driver = practice_browser
    driver.get(f"{practice_server}/?lang=en")
    driver.delete_all_cookies()  # a new learner: nothing answered yet
    driver.get(f"{practice_server}/?lang=en")
    _click(driver, "home-continue")
    _wait(driver, lambda d: d.find_elements(By.ID, "continue-none"), "Continue opened a question without history")
    box = driver.find_element(By.ID, "continue-none")
    assert box.get_attribute("data-reason") == "first"
    assert "not answered any question yet" in box.text
    assert "/questions/" not in driver.current_url

    testing.open_question(driver, practice_server, QID, 4321, timeout=WAIT_S)
    _type_answers(driver, "0")
    _click(driver, "submit")
    _wait(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
          "no result after submitting")
    driver.get(f"{practice_server}/?lang=en")
    _click(driver, "home-continue")
    _ready(driver)
    assert _variant(driver) == 4321, "Continue drew a new variant"
    assert re.search(r"[?&]variant=4321(&|$)", driver.current_url)


def test_show_solution_asks_first(practice_server, practice_browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = practice_browser
    testing.open_question(driver, practice_server, QID, 22, timeout=WAIT_S)
    solution = driver.find_element(By.ID, "solution")
    box = driver.find_element(By.ID, "solution-confirm")
    assert not box.is_displayed()
    _click(driver, "show-solution")
    _wait(driver, lambda d: box.is_displayed(), "Show solution did not ask")
    assert "recorded" in box.text and "Yes, show it" in box.text
    active = lambda d: d.switch_to.active_element.get_attribute("id")  # noqa: E731
    assert active(driver) == "solution-confirm-yes", "the confirmation did not take the focus"
    assert driver.find_element(By.ID, "show-solution").get_attribute("aria-expanded") == "true"
    # Escape: nothing shown, the focus goes back to the button
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    _wait(driver, lambda d: not box.is_displayed(), "Escape did not close the confirmation")
    assert active(driver) == "show-solution"
    assert not solution.is_displayed()
    # Cancel: the same
    _click(driver, "show-solution")
    _wait(driver, lambda d: box.is_displayed(), "Show solution did not ask again")
    _click(driver, "solution-confirm-no")
    assert not box.is_displayed() and not solution.is_displayed()
    # with the keyboard: Enter on the button opens it, Enter on "Yes, show it" shows the solution
    driver.find_element(By.ID, "show-solution").send_keys(Keys.ENTER)
    _wait(driver, lambda d: active(d) == "solution-confirm-yes", "the keyboard did not reach the confirmation")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    _wait(driver, lambda d: solution.is_displayed(), "Yes, show it did not show the solution")
    assert "asked for the solution" in driver.find_element(By.ID, "tries").text
    assert not box.is_displayed()

    # in Chinese
    testing.open_question(driver, practice_server, QID, 23, lang="zh", timeout=WAIT_S)
    _click(driver, "show-solution")
    box = driver.find_element(By.ID, "solution-confirm")
    _wait(driver, lambda d: box.is_displayed(), "Show solution did not ask (zh)")
    assert "是的,显示答案" in box.text and "取消" in box.text and "复习" in box.text
