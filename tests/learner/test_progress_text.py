"""The Progress page reads well: topics by their names (questions/tags.yml) in the page's language, not
their slugs; counts in the right plural ("1 day", "2 days", "1 question seen"); and the accuracy chart's "100%" label
inside the picture (right-aligned at the axis, it was clipped to "00%" by too narrow a margin)."""

from __future__ import annotations

import re
from pathlib import Path

from checkers.bank import params_for
from checkers.params import resolve_value

import quiz_testing as testing
from quizapp.learning import charts

ROOT = Path(__file__).resolve().parents[2]


def test_accuracy_axis_labels_fit_in_the_left_margin():
    svg = str(charts.accuracy_line([{"date": "2026-01-01", "accuracy": 1.0}], title="t", desc="d"))
    label = re.search(r'<text class="chart-label" x="([\d.]+)" y="12" text-anchor="end">100%</text>', svg)
    assert label, svg
    assert float(label.group(1)) - charts.label_width("100%") >= 0, "the 100% label starts left of the picture"
    assert ">0%</text>" in svg


def test_mastery_bars_are_labelled_with_names_that_fit():
    long_name = "Importance ratios and off-policy data"
    svg = str(charts.mastery_bars({"importance-sampling": {"seen": 2, "mastered": 1},
                                   "kl-estimators": {"seen": 1, "mastered": 1}},
                                  title="t", desc="d", seen_word="seen", mastered_word="mastered",
                                  names={"importance-sampling": long_name, "kl-estimators": "KL 估计器（k1、k2、k3）"}))
    labels = re.findall(r'<text class="chart-label" x="([\d.]+)" y="\d+" text-anchor="end">([^<]*)</text>', svg)
    assert [t for _, t in labels] == [long_name, "KL 估计器（k1、k2、k3）"]
    assert "importance-sampling" not in svg
    for x, text in labels:
        assert float(x) - charts.label_width(text) >= 0, f"{text!r} is clipped"


def _answer(client, qid: str, question: dict, variant: int) -> None:
    value = resolve_value(question["parts"][0]["expected"], params_for(question, variant))
    r = client.post(f"/api/v1/questions/{qid}/attempts",
                    json={"variant": variant, "answers": {"a": repr(float(value)), "b": "no"}})
    assert r.status_code == 201, r.get_data(as_text=True)


def test_progress_page_names_topics_and_counts_days(tmp_path, db_url):
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path, database_url=db_url)
    app.config["QUIZ_BANK_PATH"] = str(ROOT / "questions")
    question = testing.sample_question(id="progress-named", tags=["kl-estimators", "kl-divergence"])
    testing.load_sample(app, question)
    try:
        client = app.test_client()
        _answer(client, "progress-named", question, 1)
        en = client.get("/progress?lang=en").get_data(as_text=True)
        assert "Practice streak: 1 day (longest 1)." in en and "1 days" not in en
        assert "1 question seen, 0 mastered; attempts: 1;" in en and "1 questions" not in en
        rows = re.findall(r'<tr class="tag-row"><td>([^<]*)</td>', en)
        assert sorted(rows) == ["KL divergence", "KL estimators (k1, k2, k3)"]
        mastery = en.split('class="chart chart-mastery"')[1].split("</svg>")[0]
        assert "KL estimators (k1, k2, k3)" in mastery and ">kl-estimators<" not in mastery
        zh = client.get("/progress?lang=zh").get_data(as_text=True)
        assert "连续练习:1 天(最长 1 天)。" in zh
        assert sorted(re.findall(r'<tr class="tag-row"><td>([^<]*)</td>', zh)) == ["KL 估计器（k1、k2、k3）", "KL 散度"]
    finally:
        get_db(app).dispose()
