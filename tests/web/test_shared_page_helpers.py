"""The helpers several blueprints share live outside any blueprint: the learner cookie's signer and id check
(quizapp.learner_cookie), the levels and their labels (quizapp.levels) and a question's page view
(quizapp.page_view); every user of them gets the same object, and they behave as the pages need."""

from __future__ import annotations

import uuid

from itsdangerous import BadSignature
import pytest

from checkers.bank import params_for, public_view
from quizapp import learner_cookie, levels, page_view
from quizapp.auth import identity
from quizapp.discover import views as discover_views
from quizapp.mock import views as mock_views
from quizapp.ops import limits
from quizapp.web import views as web_views


def test_every_user_imports_the_one_helper():
    assert identity.learner_serializer is limits.learner_serializer is learner_cookie.learner_serializer
    assert identity.is_learner_id is limits.is_learner_id is learner_cookie.is_learner_id
    assert web_views.level_label is discover_views.level_label is levels.level_label
    assert web_views.page_from_public_view is mock_views.page_from_public_view is page_view.page_from_public_view


@pytest.mark.parametrize("value, ok", [(uuid.uuid4().hex, True), (uuid.uuid4().hex.upper(), True),
                                       (str(uuid.uuid4()), False), ("g" * 32, False), ("", False),
                                       (None, False), (12345, False)])
def test_a_learner_id_is_32_hex_digits(value, ok):
    assert learner_cookie.is_learner_id(value) is ok


def test_the_cookie_signer_round_trips_and_refuses_another_key(web_app):
    lid = uuid.uuid4().hex
    with web_app.test_request_context():
        token = learner_cookie.learner_serializer().dumps(lid)
        assert learner_cookie.learner_serializer().loads(token) == lid
    other = type(web_app)(__name__)
    other.config["SECRET_KEY"] = "another key"
    with other.app_context(), pytest.raises(BadSignature):
        learner_cookie.learner_serializer().loads(token)


def test_level_labels_follow_the_language(web_app):
    assert levels.LEVELS == ("L1", "L2", "L3") and set(levels.LEVEL_LABELS) == set(levels.LEVELS)
    with web_app.test_request_context("/?lang=en"):
        en = [levels.level_label(x) for x in levels.LEVELS]
    with web_app.test_request_context("/?lang=zh"):
        zh = [levels.level_label(x) for x in levels.LEVELS]
    assert all(label.startswith(x) for label, x in zip(en, levels.LEVELS)) and en != zh
    with web_app.test_request_context("/"):
        assert levels.level_label("L9") == "L9"  # an unknown level is shown as written


def _question() -> dict:
    t = lambda en, zh: {"en": en, "zh": zh}  # noqa: E731
    return {
        "id": "shared-page-q", "level": "L1", "tags": ["kl"], "title": t("Odds of $p$", "p of odds (zh)"),
        "prompt": t("Let $p = {{p}}$.", "p = {{p}} (zh)."),
        "params": {"p": {"uniform": [0.2, 0.8], "round": 2}},
        "solution": {"key_points": t(["k"], ["k"]), "pitfalls": t(["p"], ["p"]), "worked": t("w", "w")},
        "parts": [
            {"id": "a", "kind": "numeric", "prompt": t("The odds $o$.", "odds $o$ (zh)."),
             "hint": t("Divide.", "Divide (zh)."), "expected": {"expr": "p/(1-p)"}},
            {"id": "c", "kind": "choice", "prompt": t("Pick one.", "Pick (zh)."),
             "options": [{"id": "x", "text": t("$x^2$ <script>alert(1)</script>", "$x^2$")},
                         {"id": "y", "text": t("y", "y")}],
             "correct": "x", "multiple": False},
        ],
    }


def test_the_page_view_renders_texts_and_never_carries_answers(web_app):
    q = _question()
    with web_app.test_request_context("/?lang=en"):
        page = page_view.page_from_public_view(public_view(q, 3, "en"))
    assert "<math" in str(page["title_html"]) and page["title_text"].startswith("Odds of")
    assert f"<mn>{params_for(q, 3)['p']}</mn>" in str(page["prompt_html"])  # the variant's value, as MathML
    a, c = page["parts"]
    assert "<math" in str(a["prompt_html"]) and a["template"] and a["placeholder"] is not None
    assert [o["id"] for o in c["options"]] == ["x", "y"]
    assert "<script" not in str(c["options"][0]["text_html"]) and "<math" in str(c["options"][0]["text_html"])
    assert "expected" not in a and "correct" not in c


def test_the_author_preview_shows_the_learners_rendering(web_app):
    from quizapp.authoring.editor_view import render_preview

    q = _question()
    with web_app.test_request_context("/?lang=en"):
        page = page_view.page_from_public_view(public_view(q, 3, "en"))
        preview = render_preview(q, 3, "en")
    assert (preview["title_html"], preview["prompt_html"]) == (page["title_html"], page["prompt_html"])
    assert [p["prompt_html"] for p in preview["parts"]] == [p["prompt_html"] for p in page["parts"]]
    assert preview["parts"][1]["options"] == page["parts"][1]["options"] and preview["parts"][0]["options"] == []


def test_one_unicode_check_guards_api_bodies_and_the_renderer(web_client):
    from quizapp import unicode_text
    from quizapp.httpkit import jsonapi

    assert jsonapi.encodable is web_views.encodable is unicode_text.encodable
    assert unicode_text.encodable("KL \u2265 0") and not unicode_text.encodable("half \ud800 pair")
    r = web_client.post("/render", data='{"items": ["fine", "bad \\ud800"]}', content_type="application/json")
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "items[1]"
