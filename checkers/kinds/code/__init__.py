"""The ``code`` answer kind: implement an engine function; graded in a sealed child against the engine.

One unit: spec checks and grading (:mod:`.checker`), test cases (:mod:`.cases`), the starter
(:mod:`.starter`). Running the code is :mod:`checkers.coderun`'s job.
"""

from .checker import CodeChecker, learner_name  # noqa: F401  (registers the kind)
from .starter import starter_source  # noqa: F401
