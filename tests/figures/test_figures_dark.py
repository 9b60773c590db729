"""Figures readable in both colour schemes: the question page draws the SVG inline with a class on every
coloured element, quiz.css maps those classes to the page's colour variables, and in Chromium the
figure's background, text and series take the dark scheme's colours (system setting or the switch)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from checkers.bank import load_question_file, params_for
import quiz_testing as testing
from quizapp.figures import catalog
from quizapp.figures.svg import render

ROOT = Path(__file__).resolve().parents[2] / "questions"
SVG = "{http://www.w3.org/2000/svg}"
QID = "bon-kl"


def _question(qid: str) -> dict:
    (path,) = ROOT.glob(f"L*/{qid}.yaml")
    return load_question_file(path)


@pytest.mark.parametrize("qid", sorted(catalog.FIGURES))
def test_every_coloured_element_has_a_class_the_stylesheet_maps(qid):
    figure = catalog.FIGURES[qid](params_for(_question(qid), 3))
    root = ET.fromstring(render(figure.chart, label=figure.alt))
    assert root.get("class") == "fig-chart" and root.get("aria-label") == figure.alt
    css = (Path(__file__).resolve().parents[2] / "quizapp" / "static" / "quiz.css").read_text(encoding="utf-8")
    for node in root.iter():
        colour = (node.get("fill") not in (None, "none")) or node.get("stroke") is not None
        if not colour:
            continue
        cls = node.get("class")
        assert cls, f"{node.tag} {node.attrib} keeps a fixed colour in dark mode"
        assert f".fig-chart .{cls}" in css or f".fig-chart circle.{cls}" in css, cls


def test_standalone_svg_keeps_its_own_name():
    figure = catalog.FIGURES[QID](params_for(_question(QID), 3))
    root = ET.fromstring(render(figure.chart))
    assert root.get("aria-labelledby") == "fig-t fig-d" and root.get("aria-label") is None


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path_factory.mktemp("figures-dark"))
    testing.load_sample(app, _question(QID))
    with testing.serve_in_thread(app, threads=2, name="figures-dark-server") as url:
        yield url
    get_db(app).dispose()


COLOURS = """
const svg = document.querySelector('#q-figure svg.fig-chart');
const css = (sel, prop) => getComputedStyle(svg.querySelector(sel))[prop];
const page = getComputedStyle(document.documentElement);
const probe = document.createElement('div'); document.body.appendChild(probe);
const resolve = (v) => { probe.style.color = v; const c = getComputedStyle(probe).color; return c; };
return {bg: css('.fig-bg', 'fill'), ink: css('.fig-ink', 'fill'), s0: css('polyline.fig-s0', 'stroke'),
        card: resolve(page.getPropertyValue('--card').trim()), inkVar: resolve(page.getPropertyValue('--ink').trim()),
        s0Var: resolve(page.getPropertyValue('--fig-s0').trim())};
"""


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["system-dark", "switch-dark", "light"])
def test_figure_takes_the_page_colours_in_chromium(live, scheme):
    args = ("--lang=en-US", "--force-dark-mode") if scheme == "system-dark" else ("--lang=en-US",)
    with testing.headless_chromium(extra_args=args, profile_prefix="figures-dark-") as driver:
        if scheme == "system-dark":
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        if scheme == "switch-dark":
            driver.get(f"{live}/appearance?theme=dark&next=/")
        testing.open_question(driver, live, QID, 3)
        got = driver.execute_script(COLOURS)
    dark = {"bg": "rgb(30, 34, 40)", "ink": "rgb(230, 232, 235)", "s0": "rgb(122, 162, 255)"}
    light = {"bg": "rgb(255, 255, 255)", "ink": "rgb(29, 35, 43)", "s0": "rgb(31, 95, 191)"}
    want = light if scheme == "light" else dark
    assert {k: got[k] for k in want} == want
    assert got["bg"] == got["card"] and got["ink"] == got["inkVar"] and got["s0"] == got["s0Var"]
