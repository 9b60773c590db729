"""A tiny bank with a curated tag list, for the search and walk tests on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import quiz_testing as testing

TAGS = ("kl-divergence: {en: KL divergence, zh: KL 散度}\n"
        "clipping: {en: Clipping, zh: 裁剪}\n"
        "advantages: {en: Advantages, zh: 优势}\n")


def _q(qid: str, level: str, tags: list[str], en: str, zh: str) -> dict:
    return testing.sample_question(id=qid, level=level, tags=tags, title={"en": en, "zh": zh})


QUESTIONS = [
    _q("disc-clip-by-hand", "L1", ["clipping"], "The clipped surrogate by hand", "手算截断目标"),
    _q("disc-group-baseline", "L2", ["advantages"], "Group baselines for rewards", "组内基线与奖励"),
    _q("disc-kl-coins", "L1", ["kl-divergence"], "Divergence between two coins", "两枚硬币之间的散度"),
    _q("disc-kl-tokens", "L2", ["kl-divergence", "clipping"], "Per-token penalties", "逐词元的惩罚"),
]


def write(root: Path) -> Path:
    testing.write_bank(root, *QUESTIONS)
    (root / "tags.yml").write_text(TAGS, encoding="utf-8")
    return root


def load(app, root: Path) -> None:
    from quizapp.storage.db import get_db
    from quizapp.services.questions import load_bank_dir

    with app.app_context():
        session = get_db(app).Session()
        try:
            summary = load_bank_dir(session, write(root))
            assert summary.errors == [] and len(summary.added) == len(QUESTIONS)
        finally:
            session.close()
