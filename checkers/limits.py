"""Every bound and default of the grading side, in one place.

Answers are hostile text, so each kind checks the size of what it is given before doing work whose cost
grows with it. The maths parser's own bounds live in :mod:`checkers.mathparse.limits` (their single home,
listed in :data:`DOCUMENTED` with the rest; importing them here would load the parser with every kind's
shape check); code-exercise limits live in
:mod:`checkers.coderun.limits`. Nothing else in ``checkers/`` defines a limit: modules import these names
(``tests/checkers/test_limits_single_home.py`` enforces it), and ``docs/supported-input.md``'s limits
section is generated from :data:`DOCUMENTED` (``scripts/gen_supported_input_doc.py``).

Two layers bound an answer, on purpose with different numbers: ``accept`` (:mod:`checkers.kinds.shape`)
refuses what must not be *stored* (a 4xx naming the field, before anything is saved), and ``parse`` refuses
what must not be *graded* (an invalid verdict that costs the learner no attempt).
"""

from __future__ import annotations

# --- storing an answer (``Kind.accept``, checkers.kinds.shape) ------------------------------------------
MAX_TEXT = 4000                 # characters of one text answer (one line of a derivation)
MAX_LONG_TEXT = 4 * MAX_TEXT    # characters of a whole multi-line answer (derivation, freetext, array as text)
MAX_LINES = 100                 # lines of a stored derivation
MAX_ARRAY_ELEMENTS = 100_000    # numbers of a stored array answer
MAX_ARRAY_DEPTH = 8             # nesting of a stored array answer
MAX_ARRAY_ENTRY = 200           # characters of one array entry written as text
MAX_OPTIONS = 100               # options ticked in a choice answer
MAX_OPTION_ID = 100             # characters of one option id

# --- grading an answer (``Kind.parse``) -------------------------------------------------------------------
MAX_SHORT_ANSWER = 2000         # characters of a numeric or choice answer: neither ever needs more
MAX_CHOICE_ITEMS = 1000         # options in one choice answer given as a list
MAX_GRADED_LINES = 60           # lines of a derivation that are graded (each line costs a bounded proof)
MAX_GRADED_ARRAY_ELEMENTS = 65536  # numbers of an array answer that are compared
MAX_GRADED_ARRAY_DEPTH = 6      # nesting of an array answer that is compared
MAX_FREETEXT_CHARS = 20_000     # characters of a self-assessed prose answer

# --- comparing tensors with the engine (checkers.tensor_compare: verify endpoint, code kind) -------------
#: ``|a - b| <= atol + rtol * |b|`` per element, ``b`` the engine's value; these are the defaults (a verify
#: request may give its own), and an array part's default tolerance. Gradients use the float64 pair.
TENSOR_RTOL = 1e-6
TENSOR_ATOL = 1e-8
TENSOR_RTOL_FLOAT32 = 1e-4      # where the engine's output is float32 (about 7 significant digits)
TENSOR_ATOL_FLOAT32 = 1e-6

# --- rendering a formula ----------------------------------------------------------------------------------
#: Nesting of a formula's presentation tree read out as words (:mod:`checkers.mathparse.spoken`); deeper
#: markup is read as its plain characters, so no formula can recurse the reader without bound.
MAX_SPOKEN_DEPTH = 64
#: Spoken forms of formulas kept per process (:func:`checkers.mathparse.spoken.speak_mathml`), and the
#: longest markup kept: at most about 4096 x 2,000 characters x a few, whatever answers arrive.
SPOKEN_MEMO = 4096
SPOKEN_MEMO_MAX_CHARS = 2_000

# --- time -------------------------------------------------------------------------------------------------
#: Hard wall-clock limit per graded answer of the sandboxed kinds (symbolic, derivation), in seconds: the
#: sandbox kills the worker past it and the answer is ``undecided`` (no attempt used).
GRADE_TIMEOUT = 1.0
#: Hard limit of :func:`checkers.kinds.sandboxed.run_guarded` when a caller gives none (the direct
#: ``/api/v1/check/symbolic`` path, which has no per-part limit of its own).
GUARDED_CHECK_TIMEOUT = 2.0
#: Soft budget the symbolic equivalence layers give themselves, in seconds (well inside the hard limit).
EQUIV_BUDGET = 0.6
#: Soft budget of a whole derivation; its steps share it (each gets what is left).
DERIVATION_BUDGET = 0.8
#: Part of the derivation budget kept for matching known mistakes after the chain.
MISTAKE_RESERVE = 0.1

# --- question documents -----------------------------------------------------------------------------------
#: Nesting (mappings and lists) of one YAML question document. Checked on the parser's event stream before
#: any object is built: libyaml's composer recurses in C, where a document thousands of levels deep would
#: overflow the stack instead of raising. A question file nests about ten levels.
YAML_MAX_DEPTH = 64

# --- placeholders in question text ----------------------------------------------------------------------
#: Largest width and largest precision a placeholder's format spec may ask for (``{{p:>12.4f}}``; checked by
#: the schema and again before every ``format()``, :func:`checkers.params.check_format_spec`). Python's
#: ``format`` builds the whole padded string first, so ``{{p:>99999999999}}`` raises MemoryError on every
#: page of the question and a width of 10^9 allocates gigabytes each time it is shown. 64 is far above any
#: display (float64 holds 17 significant digits; the bank asks for at most 6 decimals; a column wider than
#: a line does not fit a prompt) and keeps one placeholder under about 400 characters (``.64f`` of 1e308).
MAX_FORMAT_FIELD = 64

# --- memoisation (entries kept per process) ---------------------------------------------------------------
EQUIVALENCE_CACHE_SIZE = 4096   # decided (expected, answer, variables) comparisons
ENGINE_CACHE_SIZE = 4096        # reference-engine outputs behind question parameters

#: The limits the documentation lists: (module, name, what it bounds); the generator reads each value.
_PARSER = "checkers.mathparse.limits"
DOCUMENTED: tuple[tuple[str, str, str], ...] = (
    (_PARSER, "MAX_INPUT_LENGTH", "characters of one maths expression"),
    (_PARSER, "MAX_TOKENS", "tokens of one maths expression"),
    (_PARSER, "MAX_DEPTH", "nesting of brackets, exponents and function arguments"),
    (_PARSER, "MAX_NUMBER_DIGITS", "digits of one number literal"),
    (_PARSER, "MAX_DEGREE", "degree of a power of an expression containing a variable"),
    (_PARSER, "MAX_POWER_BITS", "bits of an exact number (numerator or denominator)"),
    (_PARSER, "BUILD_BUDGET_S", "CPU seconds to build one expression"),
    (__name__, "MAX_TEXT", "characters of one stored text answer (one line of a derivation)"),
    (__name__, "MAX_LONG_TEXT", "characters of a stored multi-line answer"),
    (__name__, "MAX_LINES", "lines of a stored derivation"),
    (__name__, "MAX_GRADED_LINES", "lines of a derivation that are graded"),
    (__name__, "MAX_SHORT_ANSWER", "characters of a numeric or choice answer"),
    (__name__, "MAX_ARRAY_ELEMENTS", "numbers of a stored array answer"),
    (__name__, "MAX_GRADED_ARRAY_ELEMENTS", "numbers of an array answer that are compared"),
    (__name__, "MAX_FREETEXT_CHARS", "characters of a self-assessed prose answer"),
    (__name__, "GRADE_TIMEOUT", "seconds (hard limit) to grade one symbolic or derivation part"),
    (__name__, "GUARDED_CHECK_TIMEOUT", "seconds (hard limit) of a direct symbolic check"),
    (__name__, "EQUIV_BUDGET", "seconds (soft) the equivalence layers give themselves"),
    (__name__, "DERIVATION_BUDGET", "seconds (soft) shared by the steps of one derivation"),
    (__name__, "YAML_MAX_DEPTH", "nesting of one YAML question document"),
)
