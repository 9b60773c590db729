"""The code editor keeps the learner's place: the bundle loads after the page, and a learner already typing
in the plain textarea goes on typing in the editor that replaces it (focus and caret carried over), so Tab
indents there instead of moving to another control; Escape then Tab still leaves. Headless Chromium against
a live server with the editor bundle (``scripts/setup`` builds it)."""

from __future__ import annotations

from pathlib import Path

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "quizapp" / "static" / "vendor" / "code-editor.js"
QID, PID = "code-k3-per-token", "implement"

# A textarea as the code widget has it, typed into before the editor arrives; mounted by the page's bundle.
MAKE = """
const ta = document.createElement('textarea');
ta.id = 'probe'; ta.value = arguments[0];
document.getElementById('part-implement').appendChild(ta);
const after = document.createElement('button'); after.id = 'probe-after'; after.textContent = 'after';
document.getElementById('part-implement').appendChild(after);
if (arguments[1] !== null) { ta.focus(); ta.setSelectionRange(arguments[1], arguments[1]); }
window.probeEditor = window.QuizEditor.mount(ta, {label: 'probe'});
const host = ta.nextElementSibling;
return [document.activeElement === host, host.shadowRoot.activeElement
        ? host.shadowRoot.activeElement.className : null, window.probeEditor.view.state.selection.main.head];
"""


@pytest.fixture(scope="module")
def editor_page(tmp_path_factory):
    from checkers.bank import load_question_file
    from quizapp.storage.db import get_db

    assert BUNDLE.is_file(), f"{BUNDLE} is missing: run scripts/setup (npm ci + the esbuild bundle in frontend/)"
    loaded = load_question_file(ROOT / "questions" / "L1" / f"{QID}.yaml")
    question = loaded if isinstance(loaded, dict) else loaded[0]
    app = testing.make_app(tmp_path_factory.mktemp("editor-focus"))
    testing.load_sample(app, question)
    with testing.serve_in_thread(app, threads=2, name="editor-focus-server") as url:
        with testing.headless_chromium(extra_args=("--lang=en-US",), profile_prefix="editor-focus-") as driver:
            testing.open_question(driver, url, QID, 0)
            testing.wait_for(driver, lambda d: d.find_element("id", f"code-widget-{PID}").get_attribute("data-ready")
                             == "1", "the code editor was not mounted (is the bundle served?)")
            yield driver
    get_db(app).dispose()


def _keys(driver, *keys) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def test_typing_before_the_editor_arrives_continues_in_it_and_tab_indents(editor_page):
    from selenium.webdriver.common.keys import Keys

    driver = editor_page
    driver.refresh()
    testing.wait_for(driver, lambda d: d.execute_script("return !!window.QuizEditor"), "no editor bundle")
    focused, inner, head = driver.execute_script(MAKE, "x = 1\ny = 2", 6)
    assert focused and inner == "cm-content" and head == 6  # the caret where it was: start of line 2
    _keys(driver, Keys.TAB)
    assert driver.execute_script("return document.getElementById('probe').value") == "x = 1\n    y = 2"
    _keys(driver, Keys.ESCAPE, Keys.TAB)  # the accessible way out
    assert driver.execute_script("return document.activeElement.id") == "probe-after"


def test_an_editor_mounted_without_focus_leaves_the_focus_alone(editor_page):
    driver = editor_page
    driver.refresh()
    testing.wait_for(driver, lambda d: d.execute_script("return !!window.QuizEditor"), "no editor bundle")
    driver.execute_script("document.getElementById('new-variant').focus()")
    focused, inner, _head = driver.execute_script(MAKE, "x = 1", None)
    assert not focused and inner is None
    assert driver.execute_script("return document.activeElement.id") == "new-variant"
