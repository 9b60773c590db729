"""Figures on question pages: ``GET /questions/<id>/figure.svg?variant=N`` draws the question's chart
(:mod:`quizapp.figures.catalog`) for that variant; ``figure_for(question id, variant)`` in templates gives
the image's address and its text alternative (``alt`` and a table of sampled values)."""

from __future__ import annotations


def blueprint():
    """The package's blueprint, from :mod:`.views` (the app factory registers it)."""
    # The views import the page kit and the API helpers, whose package imports this package's OpenAPI
    # fragment: importing the views on first use keeps `import quizapp.<package>` free of that cycle.
    from .views import bp  # local: breaks the import cycle above
    return bp
