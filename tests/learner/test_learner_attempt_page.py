"""/history/<attempt_id>: a past attempt opens with the question at its variant, the answers given, each
part's verdict and feedback, the score and the time; only its owner sees it (404 otherwise); History links
each row to it."""

import re

from checkers.bank import params_for
from quiz_testing import SAMPLE_QUESTION

from quizapp.attempt_view import answer_view


def test_history_rows_link_to_their_attempt(client, lm):
    first = lm.answer(client, 1, right=False)
    second = lm.answer(client, 2, right=True)
    html = client.get("/history").get_data(as_text=True)
    links = re.findall(r'class="attempt-open" href="/history/([0-9a-f]+)"', html)
    assert links == [second["attempt_id"], first["attempt_id"]]  # newest first, one per row


def test_attempt_page_shows_answers_verdicts_score_and_variant(client, lm):
    aid = lm.answer(client, 4, right=False)["attempt_id"]  # a = "0", b = "yes": both wrong
    resp = client.get(f"/history/{aid}")
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    p = params_for(SAMPLE_QUESTION, 4)["p"]
    assert f"<mn>{p:g}</mn>" in html  # the prompt at the attempt's variant, not another one
    assert "Variant #4" in html and "Score: 0 / 2" in html
    part_a = html[html.index('id="attempt-part-a"'):html.index('id="attempt-part-b"')]
    assert '<code>0</code>' in part_a and 'data-status="incorrect"' in part_a and "0 / 1" in part_a
    part_b = html[html.index('id="attempt-part-b"'):]
    assert '<ul class="attempt-options"><li>Yes</li></ul>' in part_b  # the option's text, not its id
    assert 'badge-incorrect' in part_b
    created = client.get(f"/api/v1/attempts/{aid}").get_json()["created_at"]
    assert f'datetime="{created}"' in html
    assert f'href="/questions/{lm.QID}?variant=4"' in html


def test_attempt_page_shows_the_checker_feedback(client, lm):
    resp = client.post(f"/api/v1/questions/{lm.QID}/attempts", json={"variant": 2, "answers": {"a": "1", "b": "no"}})
    aid = resp.get_json()["attempt_id"]
    feedback = resp.get_json()["parts"]["a"]["feedback"]
    assert feedback  # too few digits: the checker says so
    html = client.get(f"/history/{aid}").get_data(as_text=True)
    assert feedback in html and "badge-correct" in html and "Score: 1 / 2" in html


def test_attempt_page_in_chinese(client, lm):
    aid = lm.answer(client, 1, right=True)["attempt_id"]
    html = client.get(f"/history/{aid}?lang=zh").get_data(as_text=True)
    assert "加倍" in html and "返回历史记录" in html and "Back to history" not in html


def test_attempt_page_is_the_owners_only(client, app, lm):
    aid = lm.answer(client, 1, right=True)["attempt_id"]
    assert app.test_client().get(f"/history/{aid}").status_code == 404
    assert client.get("/history/" + "0" * 32).status_code == 404
    assert client.get("/history/" + "x" * 100).status_code == 404


def test_code_and_derivation_answers_show_verbatim_and_choices_by_text():
    code = "def f(x):\n    return 2 * x\n"
    assert answer_view({"kind": "code"}, code) == {"form": "verbatim", "text": code}
    assert answer_view({"kind": "derivation"}, ["a = b", "= c"]) == {"form": "verbatim", "text": "a = b\n= c"}
    choice = {"kind": "choice", "options": [{"id": "x", "text_html": "Ex"}, {"id": "y", "text_html": "Why"}]}
    assert answer_view(choice, ["y", "x"]) == {"form": "options", "choices": ["Why", "Ex"]}
    assert answer_view({"kind": "numeric"}, "  ") == {"form": "none"}
    assert answer_view({"kind": "numeric"}, None) == {"form": "none"}
    assert answer_view({"kind": "numeric"}, "0.5") == {"form": "text", "text": "0.5"}
