"""Every registered answer kind keeps the contract of tests/kinds/kind_contract.py, and the contract's
checks fail on a kind that breaks it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from checkers.kinds import get_kind, kind_names

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kind_contract import CHECKS, check_examples, check_page, check_public_schema, starter  # noqa: E402


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", kind_names())
def test_every_kind_keeps_the_contract(name, check):
    check(get_kind(name))


@pytest.mark.parametrize("name", kind_names())
def test_every_kind_renders_on_the_question_page(name, kinds_app):
    kind = get_kind(name)
    check_page(kind, kinds_app(starter(kind)))


def test_the_checks_fail_on_a_broken_kind():
    """The contract catches a kind whose example is graded otherwise than declared, and a public field
    missing from its schema."""
    base = get_kind(kind_names()[0])

    class Liar(type(base)):  # the same kind, claiming its correct answers are invalid
        def examples(self, spec, params):
            ex = super().examples(spec, params)
            ex.invalid, ex.correct = list(ex.correct), list(ex.correct)
            return ex

    with pytest.raises(AssertionError):
        check_examples(Liar())

    class Undeclared(type(base)):
        public_schema: dict = {}

        def public(self, part, params, lang, fill):
            return {**super().public(part, params, lang, fill), "secret_field": 1}

    kind = Undeclared()
    from checkers.kinds import base as registry

    registry.unregister_kind(kind.name)
    try:
        registry.register_kind(kind)
        with pytest.raises(AssertionError):
            check_public_schema(kind)
    finally:
        registry.unregister_kind(kind.name)
        registry.register_kind(base)
