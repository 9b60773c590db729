""""New question" offers a starter per answer kind; each is valid, passes its own self-test as is, and saves."""

from __future__ import annotations

import pytest

from checkers.kinds import kind_names
from quizapp.authoring import pages, validation
from quizapp.authoring.yamlsafe import parse_yaml


def test_every_answer_kind_has_a_starter():
    assert set(pages.starter_kinds()) == set(kind_names())


@pytest.mark.parametrize("kind", pages.starter_kinds())
def test_starter_is_valid_and_self_tests(kind):
    text = pages.starter_text(kind)
    data = parse_yaml(text, kind)
    validation.validate(data, text=text)
    assert kind in {p["kind"] for p in data["parts"]}
    report = validation.selftest_report(data)
    assert report["ok"], report["failures"][:3]


def test_new_page_offers_the_starters(authoring_client, authoring_passwords):
    import quiz_testing as testing

    testing.author_login(authoring_client, "alice", authoring_passwords["alice"])
    page = authoring_client.get("/author/new?kind=derivation").get_data(as_text=True)
    assert 'id="starters"' in page and "key_steps:" in page
    for kind in pages.starter_kinds():
        assert f'data-kind="{kind}"' in page
