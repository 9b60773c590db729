"""Browser practice: the home page, the question page and a small Markdown-rendering endpoint.

Pages are rendered on the server (prompts, hints and options as sanitised HTML with MathML); the browser
script in ``static/quiz.js`` previews answers through ``POST /api/v1/questions/<id>/validate`` and submits
them to ``POST /api/v1/questions/<id>/attempts``. Every response of this blueprint carries a strict Content
Security Policy (``default-src 'self'``: no inline script, nothing from other origins).
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint(
    "web",
    __name__,
    template_folder="../templates",
    static_folder="../static",
    static_url_path="/assets",
)

from . import views  # noqa: E402,F401  (routes register on bp)
