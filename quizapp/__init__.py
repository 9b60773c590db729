"""The RLHF quiz service: a Flask app (JSON API v1 + browser practice) over the checkers package.

``create_app(config=None)`` builds an app from the environment (see :mod:`quizapp.config`); ``config``
(a dict) overrides any key, e.g. ``create_app({"DATABASE_URL": "sqlite:///tmp/x.sqlite3"})``.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Mapping

from flask import Flask

from . import config as _config
from . import db, errors_http, i18n, learners
from . import kind_assets  # each answer kind's widget template and browser script, from its folder
from . import ops  # request ids, /healthz /readyz /metrics, rate limits (installed after every blueprint)
from .accounts import api as accounts_api, pages as accounts_pages  # learner accounts and tokens
from .api import bp as api_bp
from .appearance import bp as appearance_bp  # the light / dark switch (a cookie; no script)
from .authoring import api as authoring_api, pages as authoring_pages  # drafts, publish, versions, import
from .cli import register_commands
from .discover import blueprint as discover_blueprint  # search, filters, next / random / continue
from .figures import blueprint as figures_blueprint  # charts drawn from the engine for the variant shown
from .headers import set_security_headers
from .jsonio import BoundedJSONProvider
from .learning import api as learning_api, pages as learning_pages  # history, review, progress
from .mock import blueprint as mock_blueprint  # mock interviews: a timed set, solutions at the end

log = logging.getLogger(__name__)

try:
    from .web import bp as web_bp  # the learner's browser pages
except ImportError as exc:  # an install without the pages package: the API works on its own
    if exc.name is None or not exc.name.startswith("quizapp.web"):
        raise
    log.debug("quizapp.web not available: %s", exc)
    web_bp = None


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.update(_config.from_env(app.instance_path))
    if config:
        app.config.update(config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _config.instance_secret_key(app.instance_path)
    app.json = BoundedJSONProvider(app)

    if app.config.get("QUIZ_SKIP_DB"):  # used by migrations/env.py to read the URL only
        return app

    i18n.init_app(app)
    db.init_app(app)
    learners.init_app(app)
    errors_http.init_app(app)

    app.register_blueprint(api_bp)

    kind_assets.init_app(app)

    app.register_blueprint(authoring_api.bp)
    app.register_blueprint(authoring_pages.bp)

    app.register_blueprint(accounts_api.bp)
    app.register_blueprint(accounts_pages.bp)
    app.register_blueprint(learning_api.bp)
    app.register_blueprint(learning_pages.bp)
    app.register_blueprint(discover_blueprint())
    app.register_blueprint(figures_blueprint())
    app.register_blueprint(mock_blueprint())
    app.register_blueprint(appearance_bp)

    if web_bp is not None:
        app.register_blueprint(web_bp)

    app.after_request(_html_security_headers)

    ops.init_app(app)

    register_commands(app)
    return app


def _html_security_headers(response):
    """Every HTML response (error pages outside the blueprints included) gets the strict CSP."""
    if response.mimetype == "text/html" and "Content-Security-Policy" not in response.headers:
        set_security_headers(response)
    return response
