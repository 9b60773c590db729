"""Hard bounds on untrusted maths input.

Every bound is checked *before* the work it protects is done, so hostile input costs at most a
linear scan plus a bounded amount of sympy construction.
"""

#: Longest accepted input, in characters (after nothing: the raw text is measured).
MAX_INPUT_LENGTH = 2_000
#: Deepest nesting of brackets / exponents / function arguments.  Keeps the recursive-descent
#: parser, the sympy builder and sympy's printers far away from Python's recursion limit.
MAX_DEPTH = 64
#: Most tokens in one input.
MAX_TOKENS = 1_000
#: Most digits in one number literal (integer and fractional digits together).
MAX_NUMBER_DIGITS = 50
#: Largest |n| in scientific notation ``1e-n``.
MAX_SCI_EXPONENT = 300
#: Largest |p/q| (and largest q) of a numeric rational exponent.  ``x^1000`` is fine,
#: ``2^(10^10)`` and ``x^(1/10^50)`` are refused before sympy tries to evaluate them.
MAX_EXPONENT = 1_000
#: A power of two exact numbers may produce at most this many bits (about 6,000 digits).
MAX_POWER_BITS = 20_000
#: Most arguments to min / max.
MAX_ARGS = 16
#: Most expansions of per-question functions in one input (bodies are substituted, so nested
#: calls multiply expression size).
MAX_FUNCTION_EXPANSIONS = 64
#: Most entries kept by the parse cache.
CACHE_SIZE = 4_096
