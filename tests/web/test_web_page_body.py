"""The learner-independent body of a question page is rendered once per (question version, variant, language,
tag names) and reused: a page opened again renders only what differs per learner."""

from __future__ import annotations

import os

from flask import template_rendered

from checkers.bank.tags import TAGS_FILE
from quizapp.web import views


def _bodies_rendered(app, client, url: str) -> tuple[int, str]:
    seen: list[str] = []

    def record(_sender, template, context, **_extra):
        seen.append(template.name)

    template_rendered.connect(record, app)
    try:
        resp = client.get(url)
    finally:
        template_rendered.disconnect(record, app)
    assert resp.status_code == 200
    return seen.count("web/_question_body.html"), resp.get_data(as_text=True)


def test_the_body_of_a_variant_is_rendered_once_and_served_alike(web_app, web_client):
    views._BODY_MEMO.clear()
    url = "/questions/web-t-numeric?variant=41"
    first, page1 = _bodies_rendered(web_app, web_client, url)
    second, page2 = _bodies_rendered(web_app, web_client, url)
    assert (first, second) == (1, 0)
    assert page1 == page2 and 'id="quiz-form"' in page2 and "#41" in page2
    # Another variant, another language: each its own body (numbers and words differ).
    assert _bodies_rendered(web_app, web_client, "/questions/web-t-numeric?variant=42")[0] == 1
    count, zh = _bodies_rendered(web_app, web_client, url + "&lang=zh")
    assert count == 1 and "网页数值题" in zh
    # Another learner on the same variant shares the body.
    assert _bodies_rendered(web_app, web_app.test_client(), url)[0] == 0


def test_renamed_tags_show_at_once(web_app, web_client, tmp_path):
    views._BODY_MEMO.clear()
    bank = tmp_path / "tag-bank"
    bank.mkdir()
    web_app.config["QUIZ_BANK_PATH"] = str(bank)
    url = "/questions/web-t-numeric?variant=3"
    (bank / TAGS_FILE).write_text("kl: {en: Old KL name, zh: 旧名}\nweb-basic: {en: Basics, zh: 基础}\n",
                                  encoding="utf-8")
    assert "Old KL name" in _bodies_rendered(web_app, web_client, url)[1]
    (bank / TAGS_FILE).write_text("kl: {en: New KL name, zh: 新名}\nweb-basic: {en: Basics, zh: 基础}\n",
                                  encoding="utf-8")
    os.utime(bank / TAGS_FILE, (1, 1))  # a distinct mtime even on a coarse clock
    count, page = _bodies_rendered(web_app, web_client, url)
    assert count == 1 and "New KL name" in page and "Old KL name" not in page


def test_a_variant_drawn_for_a_first_visit_is_rendered_in_place_and_not_kept(web_app, web_client):
    views._BODY_MEMO.clear()
    count, page = _bodies_rendered(web_app, web_client, "/questions/web-t-numeric")
    assert count == 0 and len(views._BODY_MEMO) == 0
    assert 'id="quiz-form"' in page and 'id="part-a"' in page  # the same body, rendered inside the page
