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
from .httpkit.headers import set_security_headers
from .httpkit.jsonio import BoundedJSONProvider
from .httpkit.signers import KeptSignerSessionInterface
from .url_memo import MemoizedUrlFlask

log = logging.getLogger(__name__)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    # The factory imports the app's parts itself (the Flask app-factory idiom): importing quizapp.config or
    # quizapp.storage.models (migrations/env.py, tools, QUIZ_SKIP_DB) then loads neither sympy nor the blueprints.
    app = MemoizedUrlFlask(__name__, instance_relative_config=True)
    app.config.update(_config.from_env(app.instance_path))
    if config:
        app.config.update(config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _config.instance_secret_key(app.instance_path)
    app.json = BoundedJSONProvider(app)
    app.session_interface = KeptSignerSessionInterface()  # Flask's session cookie, its signer kept

    if app.config.get("QUIZ_SKIP_DB"):  # used by migrations/env.py to read the URL only
        return app

    from . import i18n, learners  # local: built by the factory
    from .storage import db  # local: built by the factory
    from .httpkit import errors as http_errors, json_writes  # local: built by the factory
    i18n.init_app(app)
    db.init_app(app)
    learners.init_app(app)
    http_errors.init_app(app)
    json_writes.init_app(app)  # cookie-authenticated API writes must be JSON (CSRF)

    from .api import bp as api_bp  # local: built by the factory
    app.register_blueprint(api_bp)
    from .practice.api import bp as practice_bp  # local: tries before the solution, hints (under /api/v1)
    app.register_blueprint(practice_bp)

    from . import kind_assets  # local: each answer kind's widget template and browser script, from its folder
    kind_assets.init_app(app)

    from .authoring import api as authoring_api, pages as authoring_pages  # local: drafts, publish, versions, import
    app.register_blueprint(authoring_api.bp)
    app.register_blueprint(authoring_pages.bp)

    from .accounts import api as accounts_api, pages as accounts_pages  # local: learner accounts and tokens
    from .learning import api as learning_api, pages as learning_pages  # local: history, review, progress
    app.register_blueprint(accounts_api.bp)
    app.register_blueprint(accounts_pages.bp)
    app.register_blueprint(learning_api.bp)
    app.register_blueprint(learning_pages.bp)
    from .discover import blueprint as discover_blueprint  # local: search, filters, next / random / continue
    app.register_blueprint(discover_blueprint())
    from .figures import blueprint as figures_blueprint  # local: charts drawn from the engine for the variant shown
    app.register_blueprint(figures_blueprint())
    from .mock import blueprint as mock_blueprint  # local: mock interviews: a timed set, solutions at the end
    app.register_blueprint(mock_blueprint())
    from .appearance import bp as appearance_bp  # local: the light / dark switch (a cookie; no script)
    app.register_blueprint(appearance_bp)

    try:
        from .web import bp as web_bp  # local: the learner's browser pages
    except ImportError as exc:  # an install without the pages package: the API works on its own
        if exc.name is None or not exc.name.startswith("quizapp.web"):
            raise
        log.debug("quizapp.web not available: %s", exc)
    else:
        app.register_blueprint(web_bp)

    app.after_request(_html_security_headers)

    from .health import bp as health_bp  # local: /healthz and /readyz
    app.register_blueprint(health_bp)
    from . import ops  # local: request ids, /metrics, rate limits (after every blueprint)
    ops.init_app(app)

    from .cli import register_commands  # local: built by the factory
    register_commands(app)
    return app


def _html_security_headers(response):
    """Every HTML response (error pages outside the blueprints included) gets the strict CSP."""
    if response.mimetype == "text/html" and "Content-Security-Policy" not in response.headers:
        set_security_headers(response)
    return response
