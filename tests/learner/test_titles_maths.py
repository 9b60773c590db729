"""Lists of questions draw a title's $maths$ as MathML (the ``inline_maths`` filter), as the question page
does: History's rows and Review's lists never show raw LaTeX."""

from __future__ import annotations

import re

import quiz_testing as testing

TITLE = {"en": "Tuning $\\beta$ by hand", "zh": "手动调节 $\\beta$"}


def test_history_and_review_draw_title_maths(tmp_path, db_url):
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path, database_url=db_url)
    testing.load_sample(app, testing.sample_question(id="titled-beta", title=TITLE))
    try:
        client = app.test_client()
        r = client.post("/api/v1/questions/titled-beta/attempts", json={"variant": 1, "answers": {"a": "0", "b": "yes"}})
        assert r.status_code == 201, r.get_data(as_text=True)
        for lang, words in (("en", "Tuning"), ("zh", "手动调节")):
            history = client.get(f"/history?lang={lang}").get_data(as_text=True)
            row = re.search(r"<td><a href=\"/questions/titled-beta[^\"]*\">(.*?)</a></td>", history, re.S)
            assert row, history
            assert words in row.group(1) and "<math" in row.group(1) and "$" not in row.group(1)
            review = client.get(f"/review?lang={lang}").get_data(as_text=True)
            items = re.findall(r'<li data-question="titled-beta">(.*?)</li>', review, re.S)
            assert items, "a wrong answer puts the question in review"
            assert all("<math" in i and "\\beta" not in i for i in items), items
    finally:
        get_db(app).dispose()
