"""Helpers for the service's tests (tests/api, tests/service): an app on a migrated SQLite file and a
small sample question. Imported by tests only."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any


SAMPLE_QUESTION: dict[str, Any] = {
    "id": "svc-sample-double",
    "level": "L1",
    "tags": ["kl", "service-test"],
    "title": {"en": "Double it", "zh": "加倍"},
    "prompt": {"en": "Let $p = {{p}}$.", "zh": "设 $p = {{p}}$。"},
    "params": {"p": {"uniform": [0.2, 0.8], "round": 2}},
    "parts": [
        {"id": "a", "kind": "numeric",
         "prompt": {"en": "What is $2p$?", "zh": "$2p$ 等于多少?"},
         "expected": {"expr": "2*p"},
         "tolerance": {"rtol": 1.0e-3, "atol": 1.0e-6},
         "mistakes": [{"expr": "p", "note": "forgot-double",
                       "feedback": {"en": "That is p, not 2p.", "zh": "这是 p,不是 2p。"}}]},
        {"id": "b", "kind": "choice",
         "prompt": {"en": "Is KL symmetric?", "zh": "KL 对称吗?"},
         "options": [{"id": "yes", "text": {"en": "Yes", "zh": "是"}},
                     {"id": "no", "text": {"en": "No", "zh": "否"}}],
         "correct": "no", "multiple": False,
         "mistakes": [{"answer": "yes", "note": "symmetric",
                       "feedback": {"en": "KL is not symmetric.", "zh": "KL 不对称。"}}]},
    ],
    "solution": {
        "key_points": {"en": ["Double p."], "zh": ["把 p 加倍。"]},
        "pitfalls": {"en": ["Forgetting the factor 2."], "zh": ["忘了因子 2。"]},
        "worked": {"en": "$2p = 2 \\cdot {{p}}$", "zh": "$2p = 2 \\cdot {{p}}$"},
    },
}


def sample_question(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(SAMPLE_QUESTION)
    data.update(changes)
    return data


def write_bank(root: Path, *questions: dict[str, Any]) -> Path:
    """Write question dicts as ``root/<level>/<id>.yaml``."""
    from checkers.bank import dump_question

    for q in questions or (SAMPLE_QUESTION,):
        path = Path(root) / q["level"] / f"{q['id']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_question(q), encoding="utf-8")
    return Path(root)


def make_app(tmp_path: Path, *, migrate: bool = True, **config: Any):
    """An app on ``tmp_path/quiz.sqlite3``, migrated to head (the schema comes from Alembic)."""
    from . import create_app
    from .migrate import upgrade

    cfg = {"TESTING": True, "SECRET_KEY": "test-secret",
           "DATABASE_URL": f"sqlite:///{Path(tmp_path) / 'quiz.sqlite3'}", "GRADE_TIMEOUT": 20}
    cfg.update(config)
    app = create_app(cfg)
    if migrate:
        upgrade(app)
    return app


def load_sample(app, *questions: dict[str, Any]):
    from .db import get_db
    from .services.questions import sync_bank

    with app.app_context():
        session = get_db(app).Session()
        try:
            return sync_bank(session, [(f"test:{q['id']}", q) for q in (questions or (SAMPLE_QUESTION,))])
        finally:
            session.close()


