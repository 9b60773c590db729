"""Hard bounds on untrusted maths input.

Every bound is checked *before* the work it protects is done, so hostile input costs at most a
linear scan plus a bounded amount of sympy construction.
"""

#: Longest accepted input, in characters (after nothing: the raw text is measured).
MAX_INPUT_LENGTH = 2_000
#: Deepest nesting of brackets / exponents / function arguments.  Keeps the recursive-descent
#: parser, the sympy builder and sympy's printers far away from Python's recursion limit.
MAX_DEPTH = 32
#: Most tokens in one input.
MAX_TOKENS = 1_000
#: Most digits in one number literal (integer and fractional digits together).
MAX_NUMBER_DIGITS = 50
#: Largest |n| in scientific notation ``1e-n``.
MAX_SCI_EXPONENT = 300
#: Largest degree |p/q| of a power of a non-numeric base (``x^6000``, ``(x-a)^6000``). Such a power is cheap
#: as it stands: the structural layer compares it as a tree and the symbolic layer never expands an exponent
#: above 12, so an answer identical to an expected ``(x-a)^6000`` is graded, not refused (issue found on a
#: public corpus of answer pairs). The bound keeps printing and numeric evaluation of the tree small.
#: Powers of numbers are bounded by the size of their result instead (MAX_POWER_BITS), so ``2^64``,
#: ``10^-12`` and ``2^10000`` are fine while ``9^9^9`` and ``2^(10^10)`` are refused before sympy tries to
#: evaluate them.
MAX_DEGREE = 100_000
#: Largest root index q of a rational exponent p/q (``x^(1/1000)``; ``2^(1/10^40)`` is refused).
MAX_ROOT = 1_000
#: The largest argument of the gamma function whose exact value (n-1)! stays under MAX_POWER_BITS.
MAX_GAMMA_ARG = 1_000
#: An exact number (numerator or denominator) may have at most this many bits, about 3,600
#: digits: safely below Python's 4,300-digit int/str conversion limit, which the printers hit.
MAX_POWER_BITS = 12_000
#: Most arguments to min / max (sympy compares them pairwise with assumption queries).
MAX_ARGS = 8
#: Most expansions of per-question functions in one input (bodies are substituted, so nested
#: calls multiply expression size).
MAX_FUNCTION_EXPANSIONS = 64
#: Most entries kept by the parse cache.
CACHE_SIZE = 4_096
#: CPU-time budget (this thread's, so a busy machine does not reject honest answers) for building
#: the sympy object.  sympy's automatic evaluation of deeply nested
#: transcendental expressions (sigmoid of sigmoid of ...) costs milliseconds per level even within
#: the bounds above; an ordinary answer builds in well under 5 ms once ``warm_up`` has paid sympy's
#: one-time costs, so only contrived input hits this, and it still leaves the 1 s answer bound.
BUILD_BUDGET_S = 0.2
