"""The bank's views read a language tag the way the service does (checkers.languages): a regional tag or
an alias names its language, anything unsupported falls back to the default instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkers.bank import load_question_file, public_view, solution_view
from checkers.bank.variants import part_hints, params_for, view_lang

QUESTION = Path(__file__).resolve().parents[2] / "questions" / "L1" / "bon-kl.yaml"


@pytest.mark.parametrize("tag, lang", [("zh", "zh"), ("zh-CN", "zh"), ("ZH_hans", "zh"), ("cn", "zh"),
                                       ("en-GB", "en"), ("fr", "en"), ("", "en"), (None, "en"), (3, "en")])
def test_view_lang_follows_the_one_language_table(tag, lang):
    assert view_lang(tag) == lang


def test_views_in_a_regional_tag_equal_the_views_in_its_language():
    q = load_question_file(QUESTION)
    assert public_view(q, 5, "zh-TW") == public_view(q, 5, "zh")
    assert public_view(q, 5, "zh")["prompt"] != public_view(q, 5, "en")["prompt"]
    assert public_view(q, 5, "de") == public_view(q, 5, "en")
    assert solution_view(q, 5, "cn")["key_points"] == solution_view(q, 5, "zh")["key_points"]
    params = params_for(q, 5)
    for part in q["parts"]:
        assert part_hints(part, "zh-CN", params) == part_hints(part, "zh", params)
