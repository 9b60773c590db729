"""Fixtures for the browser-practice tests: the real app on a temporary, migrated SQLite database.

``web_app`` holds a handful of hand-written questions (one per level and kind, and one full of XSS
payloads) so page tests do not depend on the seed bank's content; the end-to-end test loads the real bank.
"""

from __future__ import annotations

import copy

import pytest


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


SOLUTION = {
    "key_points": _t(["The ratio is $\\frac{p}{q}$."], ["比值是 $\\frac{p}{q}$。"]),
    "pitfalls": _t(["Mixing up the direction."], ["搞反方向。"]),
    "worked": _t("Since $\\ln 1 = 0$, done.", "因为 $\\ln 1 = 0$,完毕。"),
}

WEB_QUESTIONS = [
    {
        "id": "web-t-numeric", "ref": "Q1", "level": "L1", "tags": ["kl", "web-basic"],
        "title": _t("Web numeric question", "网页数值题"),
        "prompt": _t("Let $p = {{p}}$ and compute $\\frac{p}{1-p}$.", "设 $p = {{p}}$,计算 $\\frac{p}{1-p}$。"),
        "params": {"p": {"uniform": [0.2, 0.8], "round": 2}},
        "parts": [
            {"id": "a", "kind": "numeric", "prompt": _t("The odds $o$.", "赔率 $o$。"),
             "hint": _t("Divide $p$ by $1-p$.", "用 $p$ 除以 $1-p$。"), "expected": 1.0},
            {"id": "c", "kind": "choice", "prompt": _t("Pick one.", "选一个。"),
             "options": [{"id": "x", "text": _t("$x^2$ is right", "$x^2$ 对")},
                         {"id": "y", "text": _t("plain text", "纯文本")}],
             "correct": "x", "multiple": False},
            {"id": "m", "kind": "choice", "prompt": _t("Pick all.", "全选。"),
             "options": [{"id": "u", "text": _t("U", "U")}, {"id": "v", "text": _t("V", "V")}],
             "correct": ["u", "v"], "multiple": True},
        ],
        "solution": SOLUTION,
    },
    {
        "id": "web-t-derive", "ref": "Q11", "level": "L2", "tags": ["kl", "derivation"],
        "title": _t("Web derivation question", "网页推导题"),
        "prompt": _t("Show that $$\\sum_x p(x) = 1$$ implies the result.", "证明 $$\\sum_x p(x) = 1$$ 推出结论。"),
        "params": {},
        "parts": [
            {"id": "s", "kind": "symbolic", "prompt": _t("Write $f(p)$.", "写出 $f(p)$。"),
             "expected": "p*ln(p)", "variables": {"p": {"domain": "probability"}}},
            {"id": "d", "kind": "derivation", "prompt": _t("Derive it.", "推导。"),
             "variables": {"p": {"domain": "probability"}}, "start": "p + (1-p)", "goal": "1",
             "reference": ["1"]},
        ],
        "solution": SOLUTION,
    },
    {
        "id": "web-t-array", "level": "L3", "tags": ["gae", "implementation"],
        "title": _t("Web array question", "网页数组题"),
        "prompt": _t("Rewards $r = {{r}}$.", "奖励 $r = {{r}}$。"),
        "params": {"r": {"value": [1.0, 0.0, 2.0]}},
        "parts": [
            {"id": "arr", "kind": "array", "prompt": _t("Returns.", "回报。"), "expected": [3.0, 2.0, 2.0]},
            {"id": "f", "kind": "freetext", "prompt": _t("Explain.", "解释。"), "weight": 0},
        ],
        "solution": SOLUTION,
    },
]

XSS = "<script>window.__xss=1</script><img src=x onerror=\"window.__xss=1\">"
XSS_QUESTION = {
    "id": "web-t-xss", "level": "L3", "tags": ["xss"],
    "title": _t("XSS " + XSS + " $\\href{javascript:window.__xss=1}{t}$",
                "XSS " + XSS),
    "prompt": _t(
        "Prompt " + XSS + "\n\n[click](javascript:window.__xss=1)\n\n"
        "<a href=\"javascript:window.__xss=1\" onclick=\"window.__xss=1\">a</a>\n\n"
        "$\\href{javascript:window.__xss=1}{x}$ and $\\text{<img src=x onerror=window.__xss=1>}$\n\n"
        "<math><mi href=\"javascript:window.__xss=1\" onmouseover=\"window.__xss=1\">m</mi></math>\n\n"
        "<iframe src=\"javascript:window.__xss=1\"></iframe><svg onload=\"window.__xss=1\"></svg>"
        "<div style=\"background:url(javascript:window.__xss=1)\">styled</div>",
        "提示 " + XSS),
    "params": {},
    "parts": [
        {"id": "p", "kind": "choice", "prompt": _t("Part " + XSS, "小题 " + XSS),
         "hint": _t("Hint " + XSS, "提示 " + XSS),
         "options": [{"id": "o", "text": _t("opt " + XSS, "选项 " + XSS)}], "correct": "o"},
    ],
    "solution": {"key_points": _t(["kp " + XSS], ["要点 " + XSS]), "pitfalls": _t([], []),
                 "worked": _t("worked " + XSS, "解答 " + XSS)},
}


def web_questions() -> list[dict]:
    return copy.deepcopy(WEB_QUESTIONS + [XSS_QUESTION])


def make_app(db_path, *, bank: str | None = None, questions: list[dict] | None = None):
    """The real app on ``db_path``, migrated with Alembic, with a bank folder or the given questions."""
    from quizapp import create_app
    from quizapp.storage import migrate
    from quizapp.storage.db import get_session
    from quizapp.services import questions as qsvc

    app = create_app({
        "DATABASE_URL": f"sqlite:///{db_path}",
        "SECRET_KEY": "web-tests-secret",
        "TESTING": True,
    })
    migrate.upgrade(app)
    with app.app_context():
        session = get_session()
        if bank:
            qsvc.load_bank_dir(session, bank)
        if questions:
            qsvc.sync_bank(session, [(f"test:{q['id']}", q) for q in questions])
    return app


@pytest.fixture()
def web_app(tmp_path):
    app = make_app(tmp_path / "web.sqlite3", questions=web_questions())
    yield app
    from quizapp.storage.db import get_db
    get_db(app).dispose()


@pytest.fixture(scope="session")
def web_make_app():
    """``make_app`` as a fixture (test modules here are not a package, so they cannot import conftest)."""
    return make_app


@pytest.fixture(scope="session")
def web_xss_question():
    return copy.deepcopy(XSS_QUESTION)


@pytest.fixture()
def web_client(web_app):
    return web_app.test_client()


@pytest.fixture(scope="module")
def practice_server(tmp_path_factory, web_make_app):
    """The sample question served live for one test module's browser (its own database)."""
    import quiz_testing as testing
    from quizapp.storage.db import get_db

    app = web_make_app(tmp_path_factory.mktemp("practice-live") / "live.sqlite3",
                       questions=[testing.SAMPLE_QUESTION])
    with testing.serve_in_thread(app, threads=4, name="practice-live-server") as url:
        yield url
    get_db(app).dispose()


@pytest.fixture(scope="module")
def practice_browser():
    """A headless Chromium in English for one test module (its own profile: its own learner cookie)."""
    import quiz_testing as testing

    with testing.headless_chromium(window_size=(1200, 900), extra_args=("--lang=en-US",),
                                   profile_prefix="practice-chromium-") as driver:
        yield driver

