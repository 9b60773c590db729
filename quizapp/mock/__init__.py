"""Mock interview: the learner picks levels, topics and a length; the service draws a set of questions
(one variant each), times each question on the server, shows no verdict or solution until the end, then
a report per topic with links to review each question. Answers are stored as ordinary attempts
(:func:`quizapp.services.attempts.submit_attempt`), so they count like any others.

The set lives in the signed session cookie (at most :data:`quizapp.mock.draw.MAX_LENGTH` questions).
"""

from __future__ import annotations

from .views import bp


def blueprint():
    """The package's blueprint, from :mod:`.views` (the app factory registers it)."""
    return bp
