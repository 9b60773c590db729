"""Search results draw a title's ``$maths$`` as MathML, as the question page does, never as raw LaTeX."""

from __future__ import annotations

import re

import quiz_testing as testing


def test_find_results_render_title_maths(tmp_path, db_url):
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path, database_url=db_url)
    question = testing.sample_question(id="find-maths", title={"en": "Tuning $\\beta$ for $\\chi^2$",
                                                                "zh": "调节 $\\beta$ 与 $\\chi^2$"})
    testing.load_sample(app, question)
    try:
        for lang, words in (("en", "Tuning"), ("zh", "调节")):
            page = app.test_client().get("/find", query_string={"lang": lang}).get_data(as_text=True)
            item = re.search(r'<li class="question-item" data-qid="find-maths".*?</li>', page, re.S)
            assert item, page
            title = re.search(r'<span class="q-title">(.*?)</span>\s*</a>', item.group(0), re.S).group(1)
            assert words in title
            assert "$" not in title and "\\beta" not in title, title
            assert title.count("<math") == 2 and "<mi>β</mi>" in title
            assert '<span class="sr-only">' in title   # the words for screen readers come along
    finally:
        get_db(app).dispose()
