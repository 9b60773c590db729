"""Figures on question pages: ``GET /questions/<id>/figure.svg?variant=N`` draws the question's chart
(:mod:`quizapp.figures.catalog`) for that variant; ``figure_for(question id, variant)`` in templates gives
the image's address and its text alternative (``alt`` and a table of sampled values)."""

from __future__ import annotations


def blueprint():
    """The blueprint (its module imports the page kit, which the API's OpenAPI module imports too)."""
    from .views import bp

    return bp
