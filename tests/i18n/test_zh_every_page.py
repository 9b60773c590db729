"""In Chinese every page type speaks Chinese: menus, buttons, labels, table heads and feedback.

Each page type is rendered with ``?lang=zh`` -- home, a question of every kind, find, history, one past
attempt, review, progress, the mock interview's set-up, question and report, the account pages and the
author pages -- for a learner with attempts (so the lists and charts have rows) and a signed-in author.
The interface text of a page is its text nodes and shown attributes (``title``, ``placeholder``,
``aria-label``, ``alt``, a button's ``value``) plus the strings handed to its scripts, outside the question's
own content (prompts, options, titles, maths and code: the bank's text, not the interface's). Any of it
that is still an English msgid of the app's or the checkers' catalog with a Chinese translation is a leak.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import quiz_testing as testing
from checkers.bank import load_question_file

ROOT = Path(__file__).resolve().parents[2]
#: (template, Chinese catalog) of the app, of the checkers and of each kind (its own, in its folder).
CATALOGS = ((ROOT / "quizapp" / "translations" / "messages.pot",
             ROOT / "quizapp" / "translations" / "zh" / "LC_MESSAGES" / "messages.po"),
            (ROOT / "checkers" / "translations" / "checkers.pot",
             ROOT / "checkers" / "translations" / "zh" / "LC_MESSAGES" / "checkers.po"),
            *((pot, pot.with_name("zh.po")) for pot in sorted((ROOT / "checkers" / "kinds").glob("*/messages.pot"))))
#: One bank question per kind (numeric and choice parts appear in several of them).
KIND_FILES = {
    "numeric+choice+freetext": "L1/v3-rm-bradley-terry-basics.yaml",
    "symbolic": "L1/q04-k3-estimator.yaml",
    "array": "L1/comp-dpo-loss-rewards.yaml",
    "derivation": "L2/q11-k3-unbiased-derivation.yaml",
    "code": "L1/code-k3-per-token.yaml",
}
SHOWN_ATTRS = ("title", "placeholder", "aria-label", "alt")
#: Elements whose content is the question's (authored) or the learner's, not interface text.
CONTENT_CLASSES = {"prose", "q-title", "option-text", "math", "sr-only", "code-widget", "expected-value",
                   "preview-question", "source-line"}
CONTENT_TAGS = {"script", "style", "textarea", "code", "pre", "math", "svg", "h1"}
VOID = {"input", "meta", "link", "br", "img", "hr", "source", "wbr"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
PASSWORD = "a long learner password 42"


def _read(path: Path):
    with open(path, "rb") as fh:
        return list(read_po(fh))


def _ids(m) -> tuple[str, ...]:
    return tuple(m.id) if isinstance(m.id, (tuple, list)) else (m.id,)


def _english_msgids() -> list[str]:
    """Every English msgid (singular and plural) of the templates -- what the code asks to translate, so a
    msgid missing from the Chinese catalog counts too -- except those whose Chinese is the same text
    (names such as "RLHF" or "PPO")."""
    out: set[str] = set()
    for template, zh in CATALOGS:
        same = {_ids(m) for m in _read(zh) if _ids(m)[0] and
                tuple(m.string if isinstance(m.string, (tuple, list)) else (m.string,))[0] == _ids(m)[0]}
        for m in _read(template):
            ids = _ids(m)
            if ids[0] and ids not in same:
                # words, not only placeholders and punctuation ("%(where)s: %(message)s")
                out.update(i for i in ids if re.search(r"[A-Za-z]{2}", re.sub(r"%\(\w+\)[sd]", "", i)))
    return sorted(out)


def _pattern(msgid: str) -> re.Pattern:
    """The msgid with its placeholders as wildcards: a label (one or two words) must be the whole text
    node (a colon after it allowed); a longer text may sit inside a node, as sentences do."""
    body = ".+?".join(re.escape(chunk) for chunk in re.split(r"%\(\w+\)[sd]", msgid))
    return re.compile(body if len(msgid.split()) >= 3 else rf"^{body}:?$")


ENGLISH = [(m, _pattern(m)) for m in _english_msgids()]


class _Interface(HTMLParser):
    """A page's interface text: text nodes and shown attributes outside the question's content and the
    language switch (which names English in English on purpose), plus its scripts' strings tables."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._stack: list[bool] = []   # per open element: whether it starts skipped content

    def _skipping(self) -> bool:
        return any(self._stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        skip = bool(tag in CONTENT_TAGS or classes & CONTENT_CLASSES or "lang-switch" in classes
                    or attrs.get("aria-hidden") == "true" or attrs.get("lang") == "en")
        if not self._skipping() and not skip:
            self.texts += [attrs[a] for a in SHOWN_ATTRS if attrs.get(a)]
            if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
                self.texts.append(attrs["value"])
        for key in ("data-config", "data-i18n"):
            if attrs.get(key):
                self.texts += _strings(json.loads(attrs[key]))
        if tag not in VOID:
            self._stack.append(skip)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self._stack.pop()

    def handle_endtag(self, tag):
        if tag not in VOID and self._stack:
            self._stack.pop()

    def handle_data(self, data):
        if not self._skipping() and data.strip():
            self.texts.append(" ".join(data.split()))


def _strings(config) -> list[str]:
    """The strings tables in a page's script configuration (``i18n`` and its kind's strings)."""
    if isinstance(config, dict):
        table = config.get("i18n", config) if "i18n" in config else config
        if table is config and not all(isinstance(v, str) for v in config.values()):
            return []
        return [v for v in table.values() if isinstance(v, str)]
    return []


def english_left(html: str) -> list[str]:
    parser = _Interface()
    parser.feed(html)
    return sorted({f"{msgid!r} in {text!r}" for msgid, pat in ENGLISH for text in parser.texts
                   if pat.search(text)})


def test_the_detector_sees_a_label_a_sentence_and_a_scripts_string():
    html = ('<nav><a href="/find">Find questions</a></nav><p class="prose">Find questions</p>'
            '<input type="search" placeholder="找题"><div data-config=\'{"i18n": {"submit": "Submit"}}\'></div>')
    left = english_left(html)
    assert any("'Find questions' in 'Find questions'" in x for x in left) and any("'Submit'" in x for x in left)
    assert english_left('<p class="prose">Find questions</p>') == []   # the question's content is not interface
    assert english_left("<p>找题</p><p>RLHF</p>") == []


def _question(rel: str) -> dict:
    loaded = load_question_file(ROOT / "questions" / rel)
    return loaded if isinstance(loaded, dict) else loaded[0]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from quizapp.auth import create_author
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path_factory.mktemp("zh-pages"))
    app.config["QUIZ_BANK_PATH"] = str(ROOT / "questions")   # the curated topic names (tags.yml)
    questions = [_question(rel) for rel in KIND_FILES.values()]
    testing.load_sample(app, *questions)
    with app.app_context():
        s = get_db(app).Session()
        create_author(s, "alice", "correct horse battery")
        s.close()
    yield app, questions
    get_db(app).dispose()


def _get(client, path: str) -> str:
    sep = "&" if "?" in path else "?"
    r = client.get(f"{path}{sep}lang=zh")
    assert r.status_code == 200, (path, r.status_code)
    html = r.get_data(as_text=True)
    assert '<html lang="zh-CN">' in html, path
    return html


@pytest.fixture(scope="module")
def learner(site):
    """A signed-up learner who went through a three-question mock interview (its answers are attempts)."""
    app, _ = site
    client = app.test_client()
    r = client.post("/api/v1/account/signup?lang=zh", json={"email": "zh@example.org", "password": PASSWORD})
    assert r.status_code == 201, r.get_data(as_text=True)
    token = CSRF.search(_get(client, "/mock")).group(1)
    r = client.post("/mock?lang=zh", data={"csrf_token": token, "level": ["L1", "L2"], "length": "3"})
    assert r.status_code == 303, r.get_data(as_text=True)
    pages = {"mock question": _get(client, "/mock/1")}
    for n in (1, 2, 3):
        client.post(f"/mock/{n}?lang=zh", data={"csrf_token": token, "skip": "1"} if n == 3 else
                    {"csrf_token": token})
    client.post("/mock/finish?lang=zh", data={"csrf_token": token})
    pages["mock report"] = _get(client, "/mock/report")
    return client, pages


def _pages(site, learner) -> dict[str, str]:
    app, questions = site
    client, pages = learner
    pages = dict(pages)
    for q in questions:
        pages[f"question {q['id']}"] = _get(client, f"/questions/{q['id']}?variant=2")
    for path in ("/", "/find", "/find?q=KL", "/history", "/review", "/progress", "/mock", "/account"):
        pages[path] = _get(client, path)
    attempt = re.search(r'href="(/history/[^"?]+)', pages["/history"])
    if attempt:
        pages["attempt"] = _get(client, attempt.group(1))
    anonymous = app.test_client()
    for path in ("/account/login", "/account/signup", "/author/login"):
        pages[path] = _get(anonymous, path)
    author = app.test_client()
    testing.author_login(author, "alice", "correct horse battery")
    qid = questions[0]["id"]
    for path in ("/author/", "/author/new", f"/author/q/{qid}", f"/author/q/{qid}/history", "/author/tokens",
                 "/author/help"):
        pages[path] = _get(author, path)
    return pages


def test_every_page_type_in_chinese_has_no_english_interface_text(site, learner):
    pages = _pages(site, learner)
    assert len(pages) >= 20
    leaks = {name: left for name, html in pages.items() if (left := english_left(html))}
    assert leaks == {}, "\n".join(f"{name}: {left}" for name, left in leaks.items())


#: Answers that draw different feedback: a wrong number, an unreadable answer, an empty one.
PROBES = ("0.5", "x +", "")


def test_feedback_in_chinese_has_no_english_text(site):
    """What a Chinese learner reads after submitting: each part's feedback (the page shows it as is)."""
    app, questions = site
    client = app.test_client()
    seen = 0
    leaks: dict[str, list[str]] = {"zh": [], "en": []}
    for q in questions:
        if any(p["kind"] == "code" for p in q["parts"]):
            continue   # a code answer runs in the sandbox: its report's strings are the kind's, checked above
        for probe in PROBES:
            answers = {p["id"]: ([probe] if p["kind"] == "derivation" else probe) for p in q["parts"]}
            for lang in leaks:
                r = client.post(f"/api/v1/questions/{q['id']}/attempts?lang={lang}",
                                json={"variant": 2, "answers": answers})
                assert r.status_code == 201, r.get_data(as_text=True)
                for pid, part in r.get_json()["parts"].items():
                    feedback = part.get("feedback")
                    if isinstance(feedback, str) and feedback:
                        seen += 1
                        leaks[lang] += [f"{q['id']}/{pid}: {msgid!r} in {feedback!r}" for msgid, pat in ENGLISH
                                        if pat.search(feedback)]
    assert seen >= 20
    assert leaks["en"], "the detector sees none of the English feedback: it could not see a leak either"
    assert leaks["zh"] == [], "\n".join(leaks["zh"])
