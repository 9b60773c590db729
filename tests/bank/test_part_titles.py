"""The tutorial questions (the q01-q25 files of questions/L1-L3) give every part a human title in both
languages, and the learner's view shows that title rather than the part's internal id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checkers.bank import load_question_file, public_view
from checkers.languages import LANGS

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = sorted((ROOT / "questions").glob("L*/q[0-9][0-9]-*.yaml"))
CJK = re.compile(r"[\u4e00-\u9fff]")
MAX_TITLE = 60  # a title is a heading, not a prompt


def test_the_tutorial_set_is_the_25_numbered_questions():
    numbers = sorted(int(p.name[1:3]) for p in TUTORIAL)
    assert numbers == list(range(1, 26))
    assert {p.parent.name for p in TUTORIAL if int(p.name[1:3]) <= 10} == {"L1"}
    assert {p.parent.name for p in TUTORIAL if 11 <= int(p.name[1:3]) <= 20} == {"L2"}
    assert {p.parent.name for p in TUTORIAL if int(p.name[1:3]) >= 21} == {"L3"}


@pytest.mark.parametrize("path", TUTORIAL, ids=lambda p: p.stem)
def test_every_part_has_a_short_distinct_title_in_both_languages(path):
    question = load_question_file(path)
    for lang in LANGS:
        seen = set()
        for part in question["parts"]:
            title = (part.get("title") or {}).get(lang, "")
            where = f"{path.name} part {part['id']} ({lang})"
            assert title.strip(), f"{where}: no title"
            assert len(title) <= MAX_TITLE, f"{where}: {len(title)} characters"
            assert title.strip().lower() != part["id"].lower(), f"{where}: the title is the internal id"
            assert title not in seen, f"{where}: the same title as another part"
            seen.add(title)
            if lang == "zh":
                assert CJK.search(title), f"{where}: not written in Chinese"
            else:
                assert not CJK.search(title), f"{where}: Chinese in the English title"


@pytest.mark.parametrize("path", TUTORIAL[:1] + TUTORIAL[-1:], ids=lambda p: p.stem)
def test_the_learner_view_shows_the_authored_titles(path):
    question = load_question_file(path)
    for lang in LANGS:
        view = public_view(question, 0, lang)
        assert [p["title"] for p in view["parts"]] == [p["title"][lang] for p in question["parts"]]
