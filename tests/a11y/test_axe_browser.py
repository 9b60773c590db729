"""Accessibility in a real headless Chromium: axe-core (from frontend/node_modules, installed by
``scripts/setup``; never a CDN) finds no serious or critical WCAG 2.2 A/AA violation on the home, question,
history, review, find, mock-interview and authoring pages, at desktop width and at 375 px; no page
scrolls sideways at 375 px. Screenshots of each page at both widths go to ``build/screenshots/``.

A headless Chromium window cannot be narrower than about 500 px, so the 375 px are Chromium's phone
emulation (:func:`quiz_testing.emulate_phone`), and every phone-width check first asserts that the page's
layout viewport is 375 CSS px wide."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the small tagged bank

import bank_fixture  # noqa: E402

import quiz_testing as testing  # noqa: E402

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "build" / "screenshots"
WIDTHS = {"desktop": (1280, 900), "phone": (375, 812)}
PASSWORD = "a long author passphrase 7"
PAGES = {
    "home": "/",
    "question": "/questions/disc-clip-by-hand?variant=7",
    "find": "/find?q=clip",
    "history": "/history",
    "review": "/review",
    "mock": "/mock",
    "author-index": "/author/",
    "author-editor": "/author/q/disc-clip-by-hand",
}
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(scope="module")
def a11y_server(tmp_path_factory):
    from quizapp.auth import create_author
    from quizapp.storage.db import get_db

    tmp = tmp_path_factory.mktemp("a11y")
    app = testing.make_app(tmp)
    bank_fixture.load(app, tmp / "bank")
    app.config["QUIZ_BANK_PATH"] = str(tmp / "bank")
    with app.app_context():
        session = get_db(app).Session()
        create_author(session, "ada", PASSWORD)
        session.commit()
        session.close()
    with testing.serve_in_thread(app, threads=4, name="a11y-live-server") as url:
        yield url
    get_db(app).dispose()


@pytest.fixture(scope="module")
def a11y_browser(a11y_server):
    from selenium.webdriver.common.by import By

    assert AXE.is_file(), f"{AXE} missing: run scripts/setup (npm ci in frontend/)"
    with testing.headless_chromium(window_size=WIDTHS["desktop"], extra_args=("--lang=en-US",),
                                   profile_prefix="a11y-chromium-") as driver:
        driver.get(a11y_server + "/author/login")
        driver.find_element(By.NAME, "username").send_keys("ada")
        driver.find_element(By.NAME, "password").send_keys(PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        testing.wait_for(driver, lambda d: "/author/login" not in d.current_url, "the author login", 20)
        yield driver


def _viewport(driver, width: str) -> None:
    """``WIDTHS[width]``: the desktop window, or a phone's viewport by emulation (see the module docstring)."""
    if width == "phone":
        testing.emulate_phone(driver, WIDTHS["phone"])
    else:
        testing.emulate_phone(driver, None)
        driver.set_window_size(*WIDTHS[width])


def _assert_viewport(driver, width: str) -> None:
    """The page is laid out at ``WIDTHS[width]`` (exactly, on a phone): a check at "375 px" never runs wider.

    The layout viewport (``documentElement.clientWidth``) is measured: on a phone ``window.innerWidth`` is the
    visual viewport, which grows when a page is wider than the screen (the browser zooms out), so it would
    hide the sideways scroll the test looks for."""
    client = driver.execute_script("return document.documentElement.clientWidth")
    if width == "phone":
        assert client == WIDTHS["phone"][0], f"laid out {client} px wide, not {WIDTHS['phone'][0]}"
    else:
        assert client >= 1024, client


def _axe(driver) -> list[dict]:
    driver.set_script_timeout(60)
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));", AXE_TAGS)
    return [v for v in result if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("page", sorted(PAGES))
def test_no_serious_axe_violation_and_no_sideways_scroll(a11y_server, a11y_browser, page, width):
    driver = a11y_browser
    _viewport(driver, width)
    driver.get(a11y_server + PAGES[page])
    testing.wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete",
                     f"{page} loaded", 20)
    _assert_viewport(driver, width)
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{page}-{width}.png"))
    assert _axe(driver) == [], page
    if width == "phone":
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{page} scrolls sideways by {overflow}px at 375 px"


def test_axe_runs_and_reports_a_missing_text_alternative(a11y_browser):
    """The check above is not vacuous: the same call finds an image without alt and an unlabeled input."""
    a11y_browser.get("data:text/html,<html lang=en><title>t</title><main><img src='x.png'><input></main></html>")
    found = {v["id"] for v in _axe(a11y_browser)}
    assert {"image-alt", "label"} <= found


def _rgb(css: str) -> tuple[float, ...]:
    parts = css[css.index("(") + 1:css.index(")")].split(",")
    return tuple(float(p) for p in parts[:3])


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG relative-luminance contrast ratio of two sRGB colours."""
    def lum(c):
        lin = [(v / 255) / 12.92 if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_skip_link_focus_ring_and_sticky_header(a11y_server, a11y_browser):
    from selenium.webdriver.common.keys import Keys

    driver = a11y_browser
    _viewport(driver, "desktop")
    driver.get(a11y_server + PAGES["question"])
    driver.find_element("css selector", "body").send_keys(Keys.TAB)
    active = driver.switch_to.active_element
    assert "skip-link" in active.get_attribute("class")
    ring = driver.execute_script("const s = getComputedStyle(document.activeElement);"
                                 "return [s.outlineStyle, s.outlineWidth, s.outlineColor,"
                                 " getComputedStyle(document.body).backgroundColor];")
    assert ring[0] == "solid" and float(ring[1].rstrip("px")) >= 2
    assert _contrast(_rgb(ring[2]), _rgb(ring[3])) >= 3
    active.send_keys(Keys.ENTER)
    assert driver.switch_to.active_element.get_attribute("id") == "main"
    # an element focused from below the fold ends up below the sticky header, not under it
    covered = driver.execute_script(
        "window.scrollTo(0, document.body.scrollHeight);"
        "const el = document.getElementById('new-variant'); el.focus();"
        "return [el.getBoundingClientRect().top, document.querySelector('.topbar').getBoundingClientRect().bottom];")
    assert covered[0] >= covered[1], covered


def test_dark_mode_follows_the_system_and_the_switch(a11y_server, a11y_browser):
    driver = a11y_browser
    _viewport(driver, "desktop")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        driver.delete_cookie("quiz_theme")
        driver.get(a11y_server + "/find")

        def background() -> float:
            return sum(_rgb(driver.execute_script("return getComputedStyle(document.body).backgroundColor")))

        assert background() < 3 * 80  # dark, as the system asks
        assert _axe(driver) == []
        driver.find_element("id", "theme-switch").click()  # system -> dark
        assert background() < 3 * 80 and driver.current_url.endswith("/find")
        driver.find_element("id", "theme-switch").click()  # dark -> light, against the system
        assert background() > 3 * 200
        assert _axe(driver) == []
        driver.get(a11y_server + "/")
        assert background() > 3 * 200  # remembered
        driver.find_element("id", "theme-switch").click()  # light -> the system's again
        assert background() < 3 * 80
    finally:
        driver.delete_cookie("quiz_theme")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_theme_switch_is_no_open_redirect(a11y_server):
    from quizapp.appearance import _safe_next

    assert _safe_next("//evil.example/x") == _safe_next("https://evil.example") == _safe_next(None) == "/"
    assert _safe_next("/\\\\evil.example") == "/"
    assert _safe_next("/find?q=clip") == "/find?q=clip"


def test_search_next_and_a_three_question_mock_in_chromium(a11y_server, a11y_browser):
    """The learner's way through the pages: search by a Chinese and an English word, walk the filtered
    list with Next, and a three-question mock interview that ends with its report."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = a11y_browser
    _viewport(driver, "phone")

    def results() -> list[str]:
        return [li.get_attribute("data-qid") for li in driver.find_elements(By.CSS_SELECTOR, "#find-results li")]

    for word, expected in (("硬币", ["disc-kl-coins"]), ("clipped", ["disc-clip-by-hand"])):
        driver.get(a11y_server + "/")
        box = driver.find_element(By.ID, "home-q")
        box.send_keys(word)
        box.submit()
        testing.wait_for(driver, lambda d: "/find" in d.current_url, "the find page", 20)
        assert results() == expected, word
        _assert_viewport(driver, "phone")

    driver.get(a11y_server + "/find")
    Select(driver.find_element(By.ID, "find-tag")).select_by_value("kl-divergence")
    driver.find_element(By.CSS_SELECTOR, "#find-form button[type=submit]").click()
    testing.wait_for(driver, lambda d: "tag=kl-divergence" in d.current_url, "the filtered list", 20)
    listed = results()
    assert listed == ["disc-kl-coins", "disc-kl-tokens"]
    driver.find_element(By.CSS_SELECTOR, f'#find-results a[href^="/questions/{listed[0]}"]').click()
    testing.wait_for(driver, lambda d: f"/questions/{listed[0]}?variant=" in d.current_url, "question 1", 20)
    driver.find_element(By.ID, "walk-next").click()
    testing.wait_for(driver, lambda d: f"/questions/{listed[1]}?variant=" in d.current_url, "next question", 20)

    driver.get(a11y_server + "/mock")
    Select(driver.find_element(By.ID, "mock-length")).select_by_value("3")
    driver.find_element(By.CSS_SELECTOR, "#mock-setup button[type=submit]").click()
    for n in (1, 2, 3):
        testing.wait_for(driver, lambda d: d.current_url.endswith(f"/mock/{n}"), f"mock question {n}", 20)
        assert driver.find_elements(By.CSS_SELECTOR, "#mock-question") and not driver.find_elements(By.ID, "mock-total")
        driver.find_element(By.ID, "a-a").send_keys("0.5")
        driver.find_element(By.CSS_SELECTOR, 'input[name="a-b"][value="no"]').click()
        driver.find_element(By.ID, "mock-submit").click()
    testing.wait_for(driver, lambda d: d.current_url.endswith("/mock/report"), "the report", 20)
    assert driver.find_element(By.ID, "mock-total").text.startswith("Score ")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#mock-items > li")) == 3
    assert driver.find_elements(By.CSS_SELECTOR, "#mock-topics tbody tr")
    assert _axe(driver) == []
    driver.save_screenshot(str(SHOTS / "mock-report-phone.png"))
