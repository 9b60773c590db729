"""The solution's expected answers in a real headless Chromium show maths as maths: a correct choice option
is copied as drawn (its formula as MathML, its words for screen readers only inside ``.sr-only``), never as
the option's ``textContent`` (the spoken words and the MathML's characters run together); and the words of
an expected formula are characters, never entity references such as ``&ExponentialE;``."""

from __future__ import annotations

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

WAIT_S = 20
QID = "web-t-solution-text"


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


QUESTION = {
    "id": QID, "level": "L1", "tags": ["kl"],
    "title": _t("Solution text", "解答文字"),
    "prompt": _t("Pick and write.", "选择并写出。"),
    "params": {},
    "parts": [
        {"id": "c", "kind": "choice", "prompt": _t("Which one?", "哪一个?"),
         "options": [{"id": "kl", "text": _t("$\\mathrm{KL}(\\pi_\\theta \\| \\pi_{ref})$ is kept small",
                                             "$\\mathrm{KL}(\\pi_\\theta \\| \\pi_{ref})$ 保持很小")},
                     {"id": "no", "text": _t("nothing", "没有")}],
         "correct": "kl", "multiple": False},
        {"id": "s", "kind": "symbolic", "prompt": _t("Write $e^x$.", "写出 $e^x$。"),
         "expected": "exp(x)", "variables": {"x": {"domain": "real"}}},
    ],
    "solution": {"key_points": _t(["Exponential."], ["指数。"]), "pitfalls": _t([], []),
                 "worked": _t("Done.", "完成。")},
}

# the text of every node of ``root`` outside .sr-only elements, and the text inside them
_SPLIT_TEXT = """
const root = arguments[0];
let shown = '', spoken = '';
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (n.parentElement.closest('.sr-only')) { spoken += n.nodeValue + ' '; } else { shown += n.nodeValue + ' '; }
}
return [shown, spoken];
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory, web_make_app):
    from quizapp.storage.db import get_db

    app = web_make_app(tmp_path_factory.mktemp("solution-text") / "live.sqlite3", questions=[QUESTION])
    with testing.serve_in_thread(app, threads=4, name="solution-text-server") as url:
        yield url
    get_db(app).dispose()


def test_expected_answers_show_maths_and_keep_words_for_screen_readers(server):
    from selenium.webdriver.common.by import By

    with testing.headless_chromium(window_size=(1280, 900), extra_args=("--lang=en-US",),
                                   profile_prefix="solution-text-") as driver:
        testing.open_question(driver, server, QID, 3, timeout=WAIT_S)
        driver.execute_script("arguments[0].click()",
                              driver.find_element(By.CSS_SELECTOR, '#part-c input[value="kl"]'))
        driver.find_element(By.ID, "answer-s").send_keys("exp(x)")
        submit = driver.find_element(By.ID, "submit")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", submit)
        submit.click()
        solution = driver.find_element(By.ID, "solution")
        testing.wait_for(driver, lambda d: solution.is_displayed(), "no solution after a correct answer", WAIT_S)

        option = driver.find_element(By.CSS_SELECTOR, "#solution .expected-options li")
        shown, spoken = driver.execute_script(_SPLIT_TEXT, option)
        assert option.find_elements(By.CSS_SELECTOR, "math"), "the option's formula is not drawn as MathML"
        assert "is kept small" in shown
        # the screen-reader words stay screen-reader only
        assert "sub" not in shown and "open bracket" not in shown, shown
        assert "sub" in spoken, spoken

        _, words = driver.execute_script(_SPLIT_TEXT, solution)
        assert "&" not in words, f"an entity reference is read out: {words!r}"
        assert "e to the power x" in words, words
