"""The question bank: question files -> validated dicts, variants, views and the self-test.

See ``docs/question-format.md`` for the file format and ``docs/interfaces.md`` for this API.
No Flask here: the service (``quizapp``) calls these functions.
"""

from __future__ import annotations

from .loader import (content_hash, dump_question, load_bank, load_bank_files, load_question_file,
                     parse_yaml, question_files, read_question_file)
from .fields import BankError
from .schema import validate_question
from .selftest import SelfTestReport, distinct_failures, selftest
from .variants import VARIANT_MAX, params_for, public_view, solution_view

__all__ = ["BankError", "SelfTestReport", "VARIANT_MAX", "content_hash", "distinct_failures", "dump_question",
           "load_bank", "load_bank_files", "load_question_file", "params_for", "parse_yaml", "public_view",
           "read_question_file",
           "question_files", "selftest", "solution_view", "validate_question"]
