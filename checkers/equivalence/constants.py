"""The equivalence checker's tolerances and sizes, in one place.

Agreement at a sample point is ``|a - e| <= ATOL + RTOL * max(|a|, |e|)``; a relative gap above
``REFUTE_GAP`` refutes on its own. ``SIMPLIFY_MAX_OPS`` and ``STRONG_SYMBOLIC_BUDGET`` bound what the
symbolic layer may spend; the ``PRECISE_*`` values set the high-precision re-check of numeric agreement.
"""

from __future__ import annotations

from typing import Literal

Outcome = Literal["equal", "not_equal", "undecided"]
MODES = ("equivalent", "same_form", "up_to_constant", "up_to_sign")

RTOL = 1e-9
ATOL = 1e-12
REFUTE_GAP = 1e-6      # relative gap above which a single point refutes without asking the symbolic layer
MIN_POINTS = 4
N_POINTS = 8
MAX_TRIES = 40
SIMPLIFY_MAX_OPS = 60  # simplify() on bigger differences is where time goes to die
#: Numeric agreement this tight at every one of ``n_points`` points is "strong": the symbolic layer then
#: only looks for a proof or a tiny constant difference with its cheap rewrites, for at most
#: ``STRONG_SYMBOLIC_BUDGET`` seconds, and skips ``simplify`` (which could only confirm the "equal").
STRONG_GAP = 1e-11
STRONG_SYMBOLIC_BUDGET = 0.15


#: Agreement in double precision is no proof when exact numbers differ beyond it
#: (``333333333333333/10^15`` vs ``1/3``): before numeric evidence alone says "equal", the two sides
#: are evaluated again at a couple of the points with this many digits, and must agree to PRECISE_GAP.
PRECISE_DIGITS = 40
PRECISE_GAP = 1e-25
PRECISE_POINTS = 2
