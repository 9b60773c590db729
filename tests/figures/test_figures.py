"""Figures drawn from the engine for the variant shown: what they plot, the SVG, the route and the page."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from checkers.bank import load_question_file, params_for
import quiz_testing as testing
from quizapp.figures import catalog
from quizapp.figures.svg import render

ROOT = Path(__file__).resolve().parents[2] / "questions"
SVG = "{http://www.w3.org/2000/svg}"


def _question(qid: str) -> dict:
    (path,) = ROOT.glob(f"L*/{qid}.yaml")
    return load_question_file(path)


@pytest.fixture(scope="module")
def fig_app(tmp_path_factory):
    app = testing.make_app(tmp_path_factory.mktemp("figures"))
    testing.load_sample(app, *[_question(qid) for qid in catalog.FIGURES])
    return app


def test_at_least_six_bank_questions_have_a_figure():
    assert len(catalog.FIGURES) >= 6
    for qid in catalog.FIGURES:
        assert _question(qid)["id"] == qid


@pytest.mark.parametrize("qid", sorted(catalog.FIGURES))
def test_every_figure_renders_for_several_variants(fig_app, qid):
    data = _question(qid)
    with fig_app.test_request_context():
        for seed in (0, 1, 12345, 999_999):
            figure = catalog.FIGURES[qid](params_for(data, seed))
            root = ET.fromstring(render(figure.chart))
            assert root.find(f"{SVG}title").text and root.find(f"{SVG}desc").text
            assert root.findall(f"{SVG}polyline")
            assert all(math.isfinite(y) for s in figure.chart.series for y in s.ys)
            assert figure.alt and figure.rows and all(len(r) == len(figure.columns) for r in figure.rows)
            assert "<script" not in render(figure.chart)


def test_kl_estimators_are_the_engines_k1_k2_k3():
    fig = catalog.kl_estimators([0.5])
    k1, k2, k3 = fig.chart.series
    for r, a, b, c in zip(k1.xs, k1.ys, k2.ys, k3.ys):
        assert a == pytest.approx(-math.log(r)) and b == pytest.approx(math.log(r) ** 2 / 2)
        assert c == pytest.approx(r - 1 - math.log(r)) and c >= 0
    assert fig.chart.markers[0][0] == 0.5


def test_ppo_objective_is_flat_where_clipped():
    eps = 0.2
    pos, neg = catalog.ppo_clip(eps, [1.0]).chart.series
    for r, up, down in zip(pos.xs, pos.ys, neg.ys):
        assert up == pytest.approx(min(r, 1 + eps))           # A = +1: min(r, clip(r))
        assert down == pytest.approx(-max(r, 1 - eps))        # A = -1: min(-r, -clip(r))


def test_gae_weights_are_powers_of_gamma_lambda():
    gae, discount = catalog.gae_weights(0.9, 0.8).chart.series
    assert gae.ys == pytest.approx([0.72 ** k for k in range(6)])
    assert discount.ys == pytest.approx([0.9 ** k for k in range(6)])


def test_overoptimisation_peaks_at_alpha_over_two_beta():
    (curve,) = catalog.overoptimisation(0.9, 0.3, [1.0]).chart.series
    best = curve.xs[max(range(len(curve.ys)), key=curve.ys.__getitem__)]
    assert abs(best - 0.9 / 0.6) <= curve.xs[1] - curve.xs[0]


def test_route_and_question_page(fig_app):
    client = fig_app.test_client()
    resp = client.get("/questions/bon-kl/figure.svg?variant=7")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    ET.fromstring(resp.get_data(as_text=True))
    zh = client.get("/questions/bon-kl/figure.svg?variant=7&lang=zh").get_data(as_text=True)
    assert zh != resp.get_data(as_text=True)  # labels in the page's language
    for bad in ("/questions/bon-kl/figure.svg", "/questions/bon-kl/figure.svg?variant=-1",
                "/questions/bon-kl/figure.svg?variant=99999999", "/questions/nope/figure.svg?variant=1"):
        assert client.get(bad).status_code == 404, bad
    page = client.get("/questions/bon-kl?variant=7").get_data(as_text=True)
    assert 'data-src="/questions/bon-kl/figure.svg?variant=7' in page and 'id="q-figure"' in page
    assert 'role="img" aria-label="' in page.split('id="q-figure"')[1].split("</figure>")[0]  # drawn inline
