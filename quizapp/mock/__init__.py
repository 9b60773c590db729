"""Mock interview: the learner picks levels, topics and a length; the service draws a set of questions
(one variant each), times each question on the server, shows no verdict or solution until the end, then
a report per topic with links to review each question. Answers are stored as ordinary attempts
(:func:`quizapp.services.attempts.submit_attempt`), so they count like any others.

The set lives in the signed session cookie (at most :data:`quizapp.mock.draw.MAX_LENGTH` questions).
"""

from __future__ import annotations


def blueprint():
    """The package's blueprint, from :mod:`.views` (the app factory registers it)."""
    # The views import the page kit and the API helpers, whose package imports this package's OpenAPI
    # fragment: importing the views on first use keeps `import quizapp.<package>` free of that cycle.
    from .views import bp  # local: breaks the import cycle above
    return bp
