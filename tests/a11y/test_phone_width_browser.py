"""Every page at phone width (375 px) in a real headless Chromium, against the live app with the whole bank.

Each page is measured in the page itself (``phone_width_measure.js``): the page never scrolls sideways; no
box of running text scrolls sideways as one block (only one formula, table or code block may scroll in its
own box, which shows the scroll cue of ``.scroll-x`` in quiz.css, shadows on the sides with more, and takes
the keyboard focus, static/scroll.js); no text is cut off or runs out of its box; no word is drawn broken over
two lines. Every question of the bank is opened (one variant each) before and after showing its solution;
then every other page type (home, find, History, Progress, Review, the account and authoring pages) in
English and Chinese; and a mock interview is taken by tapping (touch input) from setup to report.

A desktop Chromium window cannot be narrower than 500 px, so the 375 px are Chromium's phone emulation
(device metrics, mobile, touch). ``PHONE_SHOTS=<folder>`` keeps full-page screenshots of the mock flow, the
other pages and the questions in ``SHOT_QUESTIONS`` there (development only).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

PHONE = (375, 812)
MEASURE = (Path(__file__).with_name("phone_width_measure.js")).read_text(encoding="utf-8")
LEARNER = ("phone@example.org", "a phone-width passphrase 5")
AUTHOR = ("ada", "a long author passphrase 7")
SHOT_QUESTIONS = {"comp-grpo-loss", "q20-sequence-vs-token-kl", "comp-gspo-vs-token-ratio"}

#: One question page, in the page: measure, ask for the solution (confirming when asked), wait until it is
#: drawn, measure again. Waits count 50 ms polls (tests measure no time).
QUESTION_FLOW = MEASURE + r"""
const done = arguments[arguments.length - 1];
const pause = () => new Promise(r => setTimeout(r, 50));
async function until(cond, polls) { for (let i = 0; i < polls; i++) { if (cond()) return true; await pause(); } return false; }
(async () => {
  const root = document.getElementById('question');
  if (!await until(() => root && root.getAttribute('data-ready') === '1', 400)) return done({error: 'quiz.js did not start'});
  await document.fonts.ready;
  const before = window.__phoneWidthProblems();
  const button = document.getElementById('show-solution');
  const sol = document.getElementById('solution');
  if (!button || button.hidden) return done({error: 'no Show solution button'});
  button.click();
  const yes = document.getElementById('solution-confirm-yes');
  if (yes && !yes.closest('[hidden]')) yes.click();
  if (!await until(() => !sol.hidden && sol.querySelector('h2'), 400)) return done({error: 'the solution did not appear'});
  // the solution's Markdown arrives from /render: drawn when no node still shows its raw source
  let last = '';
  for (let i = 0; i < 400; i++) {
    const now = sol.innerHTML;
    if (now === last && !sol.querySelector('.pending')) break;
    last = now; await pause(); await pause();
  }
  done({before, after: window.__phoneWidthProblems(), width: document.documentElement.clientWidth});
})().catch(e => done({error: String(e)}));
"""


def _shots() -> Path | None:
    out = os.environ.get("PHONE_SHOTS")
    if not out:
        return None
    Path(out).mkdir(parents=True, exist_ok=True)
    return Path(out)


def _shot(driver, name: str) -> None:
    """A screenshot of the whole page (its full height) when ``PHONE_SHOTS`` names a folder."""
    out = _shots()
    if out is None:
        return
    height = driver.execute_script("return document.documentElement.scrollHeight")
    _phone_viewport(driver, min(max(height, PHONE[1]), 8000))
    driver.save_screenshot(str(out / f"{name}.png"))
    _phone_viewport(driver, PHONE[1])


def _phone_viewport(driver, height: int) -> None:
    """A phone's viewport, 375 px wide (a desktop window cannot be made that narrow): the page's viewport
    meta applies, scroll bars overlay the content as on a phone, touch input is on."""
    testing.emulate_phone(driver, (PHONE[0], height), scale=1)


def _assert_phone_width(width: int) -> None:
    """The measured page's layout viewport (``documentElement.clientWidth``) is exactly 375 CSS px, so no
    check runs wider (``innerWidth``, the visual viewport, grows when a page overflows: not measured)."""
    assert width == PHONE[0], f"the page was laid out {width} px wide, not {PHONE[0]}"


@pytest.fixture(scope="module")
def phone_server(tmp_path_factory):
    """The app with the whole bank, an author, served live."""
    from quizapp.auth import create_author
    from quizapp.storage.db import get_db, get_session
    from quizapp.services import questions as qsvc

    app = testing.make_app(tmp_path_factory.mktemp("phone-width"))
    with app.app_context():
        summary = qsvc.load_bank_dir(get_session(), app.config["QUIZ_BANK_PATH"])
        assert summary.added and not summary.errors, summary.errors
        ids = [row["id"] for row in qsvc.list_questions(get_session())]
        session = get_db(app).Session()
        create_author(session, *AUTHOR)
        session.commit()
        session.close()
    with testing.serve_in_thread(app, threads=4, name="phone-width-server") as url:
        yield {"url": url, "ids": ids}
    get_db(app).dispose()


@pytest.fixture(scope="module")
def phone(phone_server):
    """One Chromium at 375 px for the module, signed in as a learner and as an author."""
    from selenium.webdriver.common.by import By

    with testing.headless_chromium(window_size=PHONE, extra_args=("--lang=en-US",),
                                   profile_prefix="phone-width-") as driver:
        driver.set_script_timeout(120)
        _phone_viewport(driver, PHONE[1])
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        url = phone_server["url"]
        driver.get(url + "/account/signup?lang=en")
        driver.find_element(By.ID, "email").send_keys(LEARNER[0])
        driver.find_element(By.ID, "password").send_keys(LEARNER[1])
        driver.find_element(By.ID, "signup-submit").click()
        testing.wait_for(driver, lambda d: "/signup" not in d.current_url, "the learner's sign-up")
        driver.get(url + "/author/login?lang=en")
        driver.find_element(By.NAME, "username").send_keys(AUTHOR[0])
        driver.find_element(By.NAME, "password").send_keys(AUTHOR[1])
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        testing.wait_for(driver, lambda d: "/author/login" not in d.current_url, "the author's sign-in")
        yield driver


def _measure(driver) -> list[str]:
    _assert_phone_width(driver.execute_script("return document.documentElement.clientWidth"))
    driver.execute_script(MEASURE)
    return driver.execute_script("return window.__phoneWidthProblems()")


def _open(driver, url: str) -> list[str]:
    driver.get(url)
    testing.wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete", url)
    driver.execute_async_script("document.fonts.ready.then(arguments[arguments.length - 1])")
    return _measure(driver)


def test_the_measurement_finds_each_fault(phone):
    """Not vacuous: a page with each fault gets each kind of report, and the same page fixed gets none."""
    page = """<!doctype html><html lang=en><meta name=viewport content='width=device-width'><style>
      body{margin:0;font:16px sans-serif} .box{width:200px;overflow-x:auto} .cue{overflow-x:auto;width:200px;
        background:linear-gradient(white,white) local,radial-gradient(black,white) scroll}
      .wide{width:500px} td{padding:0} .narrow{width:40px;overflow-wrap:anywhere}
      .cut{width:60px;overflow:hidden;white-space:nowrap}
      .tight{width:30px}</style><body>%s</body></html>"""
    faults = {
        "page": "<div class=wide>wide</div>",
        "keyboard": "<div class=cue><math display=block><mi>x</mi><mspace width=400px></mspace><mi>y</mi></math></div>",
        "cue": "<div class=box><math display=block><mi>x</mi><mspace width=400px></mspace><mi>y</mi></math></div>",
        "scrolls": "<div class=box><p>running text <span style='display:inline-block;width:400px'>x</span></p></div>",
        "clipped": "<div class=cut>Log out somebody</div>",
        "spills": "<p class=tight><span style='display:inline-block;width:200px'>x</span></p>",
        "word": "<table><tr><td class=narrow>Incorrect</td></tr></table>",
    }
    import urllib.parse

    for kind, body in faults.items():
        phone.get("data:text/html;charset=utf-8," + urllib.parse.quote(page % body))
        found = _measure(phone)
        assert any(p.startswith(("scrolls" if kind == "cue" else kind) + ":") for p in found), (kind, found)
        assert phone.execute_script("return document.documentElement.clientWidth") == PHONE[0]
    fine = ("<div class=cue tabindex=0><math display=block><mi>x</mi><mo>=</mo><mspace width=400px></mspace>"
            "<mi>y</mi></math></div>"
            "<table><tr><td>Incorrect</td></tr></table><p>Short words wrap at spaces.</p>")
    phone.get("data:text/html;charset=utf-8," + urllib.parse.quote(page % fine))
    assert _measure(phone) == []


def test_every_question_before_and_after_its_solution(phone_server, phone):
    url = phone_server["url"]
    ids = phone_server["ids"]
    assert len(ids) > 150  # the whole bank, not a sample
    failures: dict[str, list[str]] = {}
    for i, qid in enumerate(ids):
        phone.get(f"{url}/questions/{qid}?variant={(i % 9) + 1}&lang=en")
        result = phone.execute_async_script(QUESTION_FLOW)
        if "error" in result:
            failures[qid] = [result["error"]]
            continue
        _assert_phone_width(result["width"])
        found = [f"before: {p}" for p in result["before"]] + [f"after: {p}" for p in result["after"]]
        if found:
            failures[qid] = found
        if qid in SHOT_QUESTIONS:
            _shot(phone, f"question-{qid}")
    report = "\n".join(f"{qid}:\n  " + "\n  ".join(problems[:8]) for qid, problems in failures.items())
    assert not failures, f"{len(failures)} of {len(ids)} questions do not fit 375 px:\n{report}"


PAGES = {
    "home": "/", "find": "/find?q=kl", "find-empty": "/find", "history": "/history", "progress": "/progress",
    "review": "/review", "mock-setup": "/mock", "account": "/account", "not-found": "/questions/no-such-question",
    "author-index": "/author/", "author-editor": "/author/q/comp-grpo-loss", "author-new": "/author/new",
    "author-history": "/author/q/comp-grpo-loss/history", "author-help": "/author/help",
    "author-tokens": "/author/tokens",
}


def _answer_wrongly(driver, url: str, qid: str) -> None:
    """Submit "1" for every one-line answer of ``qid`` (an incorrect attempt for History and Review)."""
    from selenium.webdriver.common.by import By

    testing.open_question(driver, url, qid, 2)
    for field in driver.find_elements(By.CSS_SELECTOR, "#quiz-form input.answer-line"):
        field.send_keys("1")
    driver.find_element(By.ID, "submit").click()
    testing.wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".verdict:not([hidden])"), "a verdict")


def test_every_page_type_in_both_languages(phone_server, phone):
    """Home, find, History, Progress, Review (with attempts in them), the account and authoring pages."""
    url = phone_server["url"]
    for qid in ("comp-grpo-loss", "q20-sequence-vs-token-kl", "comp-gspo-vs-token-ratio"):
        _answer_wrongly(phone, url, qid)
    failures = {}
    for lang in ("en", "zh"):
        for name, path in PAGES.items():
            sep = "&" if "?" in path else "?"
            found = _open(phone, f"{url}{path}{sep}lang={lang}")
            if found:
                failures[f"{name} ({lang})"] = found
            if lang == "en":
                _shot(phone, name)
    report = "\n".join(f"{page}:\n  " + "\n  ".join(p[:8]) for page, p in failures.items())
    assert not failures, report


def _tap(driver, element) -> None:
    """A finger's tap on the middle of ``element`` (W3C touch pointer actions), scrolled into view first."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.pointer_action.move_to(element).pointer_down().pause(0.05).pointer_up()
    actions.perform()


def test_a_mock_interview_by_tapping(phone_server, phone):
    from selenium.webdriver.common.by import By

    url = phone_server["url"]
    problems = _open(phone, url + "/mock?lang=en")
    assert problems == [], problems
    # a topic with choice questions, so that options are drawn (and tapped) too
    _tap(phone, phone.find_element(By.CSS_SELECTOR, '#mock-setup input[name="tag"][value="kl-estimators"]'))
    assert phone.find_element(By.CSS_SELECTOR, '#mock-setup input[name="tag"][value="kl-estimators"]').is_selected()
    _tap(phone, phone.find_element(By.CSS_SELECTOR, "#mock-setup button[type=submit]"))
    seen = 0
    failures: dict[str, list[str]] = {}
    for n in range(1, 9):
        testing.wait_for(phone, lambda d: d.current_url.split("?")[0].endswith((f"/mock/{n}", "/mock/report")),
                         f"mock question {n} or the report")
        if phone.current_url.split("?")[0].endswith("/mock/report"):
            break
        seen += 1
        problems = _measure(phone)
        if problems:
            failures[f"question {n}"] = problems
        _shot(phone, f"mock-question-{n}")
        for part in phone.find_elements(By.CSS_SELECTOR, "#mock-form .part"):
            options = part.find_elements(By.CSS_SELECTOR, "label.option")
            if options:
                _tap(phone, options[-1])
                assert options[-1].find_element(By.TAG_NAME, "input").is_selected(), "a tapped option is chosen"
            else:
                field = part.find_element(By.CSS_SELECTOR, "input[type=text]")
                _tap(phone, field)
                field.send_keys("0.5")
        _tap(phone, phone.find_element(By.ID, "mock-submit"))
    assert seen >= 3
    testing.wait_for(phone, lambda d: d.current_url.split("?")[0].endswith("/mock/report"), "the mock report")
    problems = _measure(phone)
    if problems:
        failures["report"] = problems
    _shot(phone, "mock-report")
    assert len(phone.find_elements(By.CSS_SELECTOR, "#mock-items > li")) == seen
    assert not failures, "\n".join(f"{page}:\n  " + "\n  ".join(p[:8]) for page, p in failures.items())
