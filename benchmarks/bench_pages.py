"""Benchmark: page weights, the bytes a browser downloads for each page type (a script, not a test).

Builds the app of a checkout (this one, or another given with ``--root``, e.g. an older commit checked out
with ``git worktree add``) on a migrated SQLite database in a temporary folder, loads that checkout's whole
question bank, and requests each page type through Flask's test client: home, a question page per answer
kind, history, review, progress, the author editor and the mock interview (set-up and a question). For each
page it counts the HTML, the style sheets it links, and the scripts it loads: ``<script src>``, the answer
kinds' scripts the question page loads itself (``kind_scripts`` in its config) and the code editor bundle
the code kind loads (``data-editor-src``; only where that checkout built it). Prints bytes per page: HTML,
CSS, JS, total, and total gzip'd (each file compressed on its own at level 6, as a server would send it).
A page type the checkout does not have is listed as absent.

Run: python benchmarks/bench_pages.py [--root CHECKOUT]
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
LINK_CSS = re.compile(r'<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"')
SCRIPT = re.compile(r'<script\b[^>]*\bsrc="([^"]+)"')
EDITOR = re.compile(r'\bdata-editor-src="([^"]+)"')
CONFIG = re.compile(r"""\bdata-config=(?:'([^']*)'|"([^"]*)")""")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
KINDS = ("numeric", "array", "choice", "symbolic", "derivation", "freetext", "code")
AUTHOR = ("bench-author", "bench author password")


def _app(root: Path, tmp: Path):
    """The checkout's app, migrated, with its bank loaded (its own modules: ``root`` goes first on the path)."""
    sys.path.insert(0, str(root))
    import quizapp
    from quizapp import create_app
    from quizapp.storage.db import get_session
    from quizapp.storage.migrate import upgrade
    from quizapp.services.questions import load_bank_dir

    assert Path(quizapp.__file__).resolve().is_relative_to(root.resolve()), quizapp.__file__
    app = create_app({"TESTING": True, "SECRET_KEY": "bench-pages", "GRADE_TIMEOUT": 20,
                      "DATABASE_URL": f"sqlite:///{tmp / 'quiz.sqlite3'}", "RATELIMIT_ENABLED": False})
    upgrade(app)
    with app.app_context():
        load_bank_dir(get_session(), root / "questions")
    return app


def _questions(root: Path) -> list[dict[str, Any]]:
    from checkers.bank import load_bank

    return sorted(load_bank(root / "questions"), key=lambda q: q["id"])


def _example_per_kind(questions: list[dict[str, Any]]) -> dict[str, str]:
    """For each kind, the question whose parts are most purely of it (ties: the first id)."""
    out: dict[str, str] = {}
    for kind in KINDS:
        best = None
        for q in questions:
            kinds = [p.get("kind") for p in q["parts"]]
            if kind in kinds:
                share = kinds.count(kind) / len(kinds)
                if best is None or share > best[0]:
                    best = (share, q["id"])
        if best:
            out[kind] = best[1]
    return out


def _assets(page: str) -> tuple[list[str], list[str]]:
    css = [html.unescape(u) for u in LINK_CSS.findall(page)]
    js = [html.unescape(u) for u in SCRIPT.findall(page) + EDITOR.findall(page)]
    for single, double in CONFIG.findall(page):
        try:
            config = json.loads(html.unescape(single or double))
        except ValueError:
            continue
        js += [u for u in config.get("kind_scripts") or [] if isinstance(u, str)]
    return list(dict.fromkeys(css)), list(dict.fromkeys(js))


def weigh(client, path: str) -> dict[str, Any] | None:
    """Bytes of the page at ``path`` and of what it loads; None when the checkout has no such page."""
    resp = client.get(path)
    if resp.status_code != 200:
        return None
    page = resp.get_data()
    css, js = _assets(page.decode("utf-8"))
    parts = {"html": [page], "css": [], "js": []}
    missing = []
    for kind, urls in (("css", css), ("js", js)):
        for url in urls:
            r = client.get(url.split("?")[0])
            if r.status_code == 200:
                parts[kind].append(r.get_data())
            else:
                missing.append(url)
    sizes = {k: sum(len(b) for b in v) for k, v in parts.items()}
    sizes["total"] = sum(sizes.values())
    sizes["gzip"] = sum(len(gzip.compress(b, 6)) for v in parts.values() for b in v)
    sizes["files"] = 1 + len(css) + len(js) - len(missing)
    sizes["missing"] = missing
    return sizes


def _author_login(app, client) -> bool:
    from quizapp.auth import create_author
    from quizapp.storage.db import get_db

    with app.app_context():
        s = get_db(app).Session()
        try:
            create_author(s, *AUTHOR)
        finally:
            s.close()
    client.get("/author/login")
    with client.session_transaction() as sess:
        token = sess.get("csrf")
    r = client.post("/author/login", data={"username": AUTHOR[0], "password": AUTHOR[1], "csrf_token": token})
    return r.status_code in (302, 303)


def _start_mock(client) -> str | None:
    page = client.get("/mock")
    m = CSRF.search(page.get_data(as_text=True)) if page.status_code == 200 else None
    if not m:
        return None
    r = client.post("/mock", data={"csrf_token": m.group(1), "length": "3"})
    return r.headers.get("Location") if r.status_code in (302, 303) else None


def run(root: Path) -> list[tuple[str, str, dict[str, Any] | None]]:
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(root, Path(tmp))
        questions = _questions(root)
        examples = _example_per_kind(questions)
        learner = app.test_client()
        first = examples.get("numeric") or questions[0]["id"]
        # one attempt, so history, review and progress show a row rather than an empty state
        parts = next(q for q in questions if q["id"] == first)["parts"]
        learner.post(f"/api/v1/questions/{first}/attempts",
                     json={"variant": 0, "answers": {p["id"]: "0" for p in parts if p.get("kind") == "numeric"}})
        pages: list[tuple[str, str]] = [("home", "/")]
        pages += [(f"question: {kind}", f"/questions/{qid}?variant=0") for kind, qid in examples.items()]
        pages += [("history", "/history"), ("review", "/review"), ("progress", "/progress")]
        rows = [(name, path, weigh(learner, path)) for name, path in pages]
        author = app.test_client()
        editor = f"/author/q/{first}"
        rows.append(("author editor", editor, weigh(author, editor) if _author_login(app, author) else None))
        mock = app.test_client()
        rows.append(("mock: set-up", "/mock", weigh(mock, "/mock")))
        location = _start_mock(mock)
        rows.append(("mock: question", location or "/mock/1", weigh(mock, location) if location else None))
        return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout whose app is weighed")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    rows = run(root)
    print(f"page weights of {root} (bytes; gzip: each file compressed on its own, level 6)")
    print(f"{'page':<22} {'html':>8} {'css':>8} {'js':>8} {'total':>9} {'gzip':>8} {'files':>5}  path")
    for name, path, w in rows:
        if w is None:
            print(f"{name:<22} {'absent':>8}  {path}")
            continue
        note = f"  (not served: {', '.join(w['missing'])})" if w["missing"] else ""
        print(f"{name:<22} {w['html']:>8} {w['css']:>8} {w['js']:>8} {w['total']:>9} {w['gzip']:>8} "
              f"{w['files']:>5}  {path}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
