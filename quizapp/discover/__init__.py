"""Finding questions: full-text search (both languages), filters by level, tag and status, and the walk
through a filter (next, previous, random, continue where the learner left off).

``GET /api/v1/search`` answers JSON; ``/find`` is the page; ``/walk/next|prev|random?from=<id>`` and
``/continue`` redirect to a question page. The page's filter is kept in the session so that the walk
links on a question page follow it.
"""

from __future__ import annotations


def blueprint():
    """The package's blueprint, from :mod:`.views` (the app factory registers it)."""
    # The views import the page kit and the API helpers, whose package imports this package's OpenAPI
    # fragment: importing the views on first use keeps `import quizapp.<package>` free of that cycle.
    from .views import bp  # local: breaks the import cycle above
    return bp
