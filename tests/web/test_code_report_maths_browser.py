"""A code part's Check report draws the authored ``$maths$`` of a mistake's feedback as MathML in headless
Chromium (through the page's /render endpoint, sanitised by the server), never as raw LaTeX; and so does the
verdict's feedback after Submit."""

from __future__ import annotations

from pathlib import Path

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
QID, PID = "code-k3-per-token", "implement"
WAIT_S = 30
# k3 with the ratio upside down: the question's "ratio-upside-down" mistake, whose feedback holds maths.
UPSIDE_DOWN = ("import torch\n"
               "def k3(log_prob, ref_log_prob): return torch.exp(log_prob - ref_log_prob) - (log_prob - ref_log_prob) - 1")

_SET_SOURCE = """
const ta = document.getElementById(arguments[0]);
const v = ta.quizEditor;
if (v) { v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: arguments[1]}}); }
ta.value = arguments[1];
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory, web_make_app):
    from checkers.bank import load_question_file
    from quizapp.storage.db import get_db

    loaded = load_question_file(ROOT / "questions" / "L1" / f"{QID}.yaml")
    question = loaded if isinstance(loaded, dict) else loaded[0]
    app = web_make_app(tmp_path_factory.mktemp("code-maths") / "live.sqlite3", questions=[question])
    with testing.serve_in_thread(app, threads=4, name="code-maths-server") as url:
        yield url
    get_db(app).dispose()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_check_report_feedback_draws_maths(server, lang):
    from selenium.webdriver.common.by import By

    with testing.headless_chromium(window_size=(1280, 900), extra_args=(f"--lang={lang}",),
                                   profile_prefix="code-maths-") as driver:
        testing.open_question(driver, server, QID, 0, lang=lang, timeout=WAIT_S)
        testing.wait_for(driver, lambda d: d.find_element(By.ID, f"code-widget-{PID}").get_attribute("data-ready"),
                         "the code widget did not start", WAIT_S)
        driver.execute_script(_SET_SOURCE, f"answer-{PID}", UPSIDE_DOWN)
        button = driver.find_element(By.ID, f"code-check-{PID}")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        report = driver.find_element(By.ID, f"code-report-{PID}")
        feedback = lambda d: d.find_element(By.CSS_SELECTOR, f"#code-report-{PID} .code-report-feedback")  # noqa: E731
        testing.wait_for(driver, lambda d: report.get_attribute("data-status") and feedback(d).find_elements(
            By.CSS_SELECTOR, "math"), "the check report's feedback has no drawn formula", WAIT_S)
        assert report.get_attribute("data-status") == "incorrect"
        text = feedback(driver).text
        assert "$" not in text and "\\pi" not in text and "mathrm" not in text, text

