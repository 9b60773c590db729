"""End to end in headless Chromium against a live server: sign up, answer three questions (one wrong),
reload, see them in History with their scores, see Progress change, find the wrong one in the Review
queue, then sign in from a second browser (its own profile) and see the same."""

from __future__ import annotations

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

QIDS = ("lm-one", "lm-two", "lm-three")
PASSWORD = "a long passphrase 42"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    from quizapp.storage.db import get_db

    tmp = tmp_path_factory.mktemp("learner-live")
    app = testing.make_app(tmp)
    testing.load_sample(app, *(testing.sample_question(id=qid) for qid in QIDS))
    with testing.serve_in_thread(app, threads=4, name="learner-live-server") as url:
        yield url
    get_db(app).dispose()


def _answer(driver, url: str, qid: str, right: bool, helpers) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/questions/{qid}?variant=3")
    box = driver.find_element(By.ID, "answer-a")
    box.send_keys(helpers.right_answers(3)["a"] if right else "0")
    option = driver.find_element(By.ID, "answer-b-no" if right else "answer-b-yes")
    driver.execute_script("arguments[0].click()", option)
    driver.execute_script("arguments[0].click()", driver.find_element(By.ID, "submit"))
    testing.wait_for(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-state") == "graded",
                     f"no result after submitting {qid}")


def _history(driver, url: str) -> dict[str, str]:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/history")
    return {row.get_attribute("data-question"): row.get_attribute("data-score")
            for row in driver.find_elements(By.CSS_SELECTOR, "#history-table tr.attempt")}


def _seen(driver, url: str) -> str:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/progress")
    return driver.find_element(By.ID, "progress-summary").text


def test_learner_journey_across_two_browsers(live, lm):
    from selenium.webdriver.common.by import By

    expected = {"lm-one": "2/2", "lm-two": "0/2", "lm-three": "2/2"}
    with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="learner-a-") as driver:
        assert "0 questions seen" in _seen(driver, live)
        driver.get(f"{live}/account/signup")
        driver.find_element(By.ID, "email").send_keys("journey@example.org")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "signup-submit").click()
        testing.wait_for(driver, lambda d: "/history" in d.current_url, "sign-up did not land on History")
        for qid in QIDS:
            _answer(driver, live, qid, right=expected[qid] == "2/2", helpers=lm)
        driver.refresh()
        assert _history(driver, live) == expected
        assert "3 questions seen" in _seen(driver, live)
        driver.get(f"{live}/review")
        queued = [li.get_attribute("data-question")
                  for li in driver.find_elements(By.CSS_SELECTOR, "#review-due li, #review-upcoming li")]
        assert "lm-two" in queued
        driver.get(f"{live}/questions/lm-two?variant=1")
        assert "Best: 0 / 2" in driver.find_element(By.ID, "learner-memory").text

    with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="learner-b-") as other:
        assert _history(other, live) == {}
        other.get(f"{live}/account/login")
        other.find_element(By.ID, "email").send_keys("journey@example.org")
        other.find_element(By.ID, "password").send_keys(PASSWORD)
        other.find_element(By.ID, "login-submit").click()
        testing.wait_for(other, lambda d: "/history" in d.current_url, "sign-in did not land on History")
        assert _history(other, live) == expected
        assert "3 questions seen" in _seen(other, live)
