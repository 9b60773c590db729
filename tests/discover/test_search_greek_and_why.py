"""Search finds Greek letters however they are written (β, \\beta in the prompts' LaTeX, the word beta),
and each result says where it matched (title, prompt, topic, id); the API gives the same as ``matched``."""

from __future__ import annotations

import re

import pytest

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.discover import index, text, why

TAGS = "kl-divergence: {en: KL divergence, zh: KL 散度}\nclipping: {en: Clipping, zh: 裁剪}\n"


def _q(qid: str, title: dict, prompt: dict, tags: list[str], part_prompt: dict | None = None) -> dict:
    q = testing.sample_question(id=qid, level="L1", tags=tags, title=title, prompt=prompt)
    if part_prompt:
        q["parts"] = [dict(q["parts"][0], prompt=part_prompt), *q["parts"][1:]]
    return q


QUESTIONS = [
    _q("gk-title", {"en": "Choosing β", "zh": "选择 β"}, {"en": "Let $p = {{p}}$.", "zh": "设 $p = {{p}}$。"},
       ["clipping"]),
    _q("gk-latex", {"en": "A penalty", "zh": "一个惩罚"},
       {"en": "The penalty is $\\beta \\, \\mathrm{KL}$ with $p = {{p}}$.", "zh": "惩罚为 $\\beta$,$p = {{p}}$。"},
       ["kl-divergence"]),
    _q("gk-word", {"en": "Coins", "zh": "硬币"}, {"en": "Let $p = {{p}}$.", "zh": "设 $p = {{p}}$。"},
       ["clipping"], part_prompt={"en": "What is the beta here?", "zh": "这里的 beta 是多少?"}),
    _q("gk-none", {"en": "Per-token clipping", "zh": "逐词元裁剪"}, {"en": "Let $p = {{p}}$.", "zh": "设 $p = {{p}}$。"},
       ["clipping"]),
]


@pytest.fixture()
def greek_app(tmp_path, db_url):
    from quizapp.services.questions import load_bank_dir

    app = testing.make_app(tmp_path, database_url=db_url)
    root = testing.write_bank(tmp_path / "bank", *QUESTIONS)
    (root / "tags.yml").write_text(TAGS, encoding="utf-8")
    app.config["QUIZ_BANK_PATH"] = str(root)
    with app.app_context():
        session = get_db(app).Session()
        try:
            assert load_bank_dir(session, root).errors == []
        finally:
            session.close()
    yield app
    get_db(app).dispose()


def _found(client, q: str) -> dict[str, list[str]]:
    body = client.get("/api/v1/search", query_string={"q": q}).get_json()
    return {item["id"]: item["matched"] for item in body["questions"]}


def test_greek_letter_found_in_every_spelling(greek_app):
    client = greek_app.test_client()
    want = {"gk-title": ["title"], "gk-latex": ["prompt"], "gk-word": ["prompt"]}
    for spelling in ("β", "beta", "\\beta", "Β", "BETA"):
        assert _found(client, spelling) == want, spelling


def test_results_say_why_they_matched(greek_app):
    client = greek_app.test_client()
    assert _found(client, "clip") == {"gk-none": ["title", "topic"], "gk-title": ["topic"],
                                      "gk-word": ["topic"]}
    assert _found(client, "裁剪") == {"gk-none": ["title", "topic"], "gk-title": ["topic"], "gk-word": ["topic"]}
    assert _found(client, "gk-latex") == {"gk-latex": ["id"]}
    assert "matched" not in client.get("/api/v1/search").get_json()["questions"][0]  # no query, no reason


@pytest.mark.parametrize("lang,words", [("en", ("Matched in: title", "Matched in: prompt")),
                                        ("zh", ("匹配位置:标题", "匹配位置:题面"))])
def test_find_page_shows_why(greek_app, lang, words):
    html = greek_app.test_client().get("/find", query_string={"q": "β", "lang": lang}).get_data(as_text=True)
    reasons = re.findall(r'<p class="match-why muted">([^<]+)</p>', html)
    assert sorted(reasons) == sorted([words[0], words[1], words[1]])


def test_bodies_indexed_before_the_greek_names_are_refreshed(greek_app):
    """A database indexed by an older build (no Greek names) is brought up to date on the first search."""
    from sqlalchemy import text as sql

    client = greek_app.test_client()
    assert _found(client, "beta")  # indexed now
    key = "rowid" if greek_app.config["DATABASE_URL"].startswith("sqlite") else "version_id"
    with greek_app.app_context():
        session = get_db(greek_app).Session()
        session.execute(sql(f"UPDATE {index.TABLE} SET body = 'old body' WHERE {key} > 0"))
        session.commit()
        session.close()
    assert _found(client, "beta") == {}  # this process already compared the bodies: the old rows stand
    index._BODIES_CHECKED.clear()  # a new process
    assert set(_found(client, "beta")) == {"gk-title", "gk-latex", "gk-word"}


def test_normalise_spells_greek_and_drops_other_latex():
    assert text.terms("β") == text.terms("\\beta") == text.terms("beta") == [("beta",)]
    assert text.terms("ϵ \\varepsilon ε") == [("epsilon",)]
    assert text.terms("\\Delta") == [("delta",)]
    assert text.terms("\\etab") == []  # not \eta followed by b: an unknown command, dropped
    assert text.document("$\\pi_\\theta$ and {{beta}}") == "pi theta and"  # a placeholder is no word
    assert why.matched_fields({"id": "x", "title": {"en": "πθ"}}, "theta", {}) == ["title"]
