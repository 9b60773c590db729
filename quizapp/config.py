"""Configuration from the environment (12-factor); ``create_app(config)`` may override any key.

=====================  =========================================================================
``DATABASE_URL``       SQLAlchemy URL; default ``sqlite:///<instance>/quizapp.sqlite3``.  PostgreSQL:
                       ``postgresql+psycopg://user:pass@host/db`` (``pip install -e .[postgres]``).
``SECRET_KEY``         signs the learner cookie; default: a random key kept in ``<instance>/secret_key``
``QUIZ_DEVICE``        torch device for the reference engine (``cpu``, ``cuda``, ``cuda:1``)
``MAX_CONTENT_LENGTH`` largest request body in bytes (default 32 MiB: a 1,000,000-element engine call)
``QUIZ_BANK_PATH``     question folder for ``load-bank``/``serve`` (default ``questions`` of the checkout)
``GRADE_TIMEOUT``      seconds one part may take to grade before it is ``undecided`` (default 10)
``SESSION_COOKIE_SECURE`` ``1``: the learner and author cookies are sent over https only (behind a TLS
                       proxy; a request that itself arrives over https gets Secure cookies anyway)
``GRADING_BACKEND``    where heavy kinds (``code``) grade: ``local`` (default: in this process's sandbox) or
                       ``rq`` (a job on a Redis queue that ``rq worker`` processes on grading hosts run)
``REDIS_URL``          the Redis of the grading queue (default ``redis://127.0.0.1:6379/0``)
``GRADING_QUEUE``      the queue's name (default ``grading``); ``GRADING_QUEUE_WAIT``: seconds a request
                       waits for a queued verdict before answering 503 / storing ``undecided`` (default 30)
``PUBLISHED_SET_RECHECK`` seconds a worker trusts its copy of the published questions for changes made by
                       other processes (default 1; ``0``: checked on every request;
                       ``quizapp.services.question_cache``)
=====================  =========================================================================
"""

from __future__ import annotations

import math
import os
import secrets
from pathlib import Path
from typing import Any

#: The checkout (editable install): holds ``questions/`` and ``migrations/``.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: An installed wheel carries its own copy of both (setup.py copies them into ``quizapp/bundled/``).
BUNDLED_ROOT = Path(__file__).resolve().parent / "bundled"


def shipped_folder(name: str) -> Path:
    """``questions`` or ``migrations``: the checkout's folder when this is a checkout, else the wheel's copy."""
    in_checkout = PROJECT_ROOT / name
    return in_checkout if in_checkout.is_dir() or not (BUNDLED_ROOT / name).is_dir() else BUNDLED_ROOT / name

# --- service limits and defaults: the one home of each (grading-side bounds: ``checkers.limits``) -------
#: Bodies of API endpoints other than the reference engine's stay small.
SMALL_BODY_LIMIT = 1 * 1024 * 1024
#: Largest request body by default: a 1,000,000-element engine call in JSON fits.
DEFAULT_MAX_CONTENT_LENGTH = 32 * 1024 * 1024
#: Seconds one part may take to grade before it is ``undecided``, by default (``GRADE_TIMEOUT``).
DEFAULT_GRADE_TIMEOUT = 10.0
#: Threads per server worker (``quizapp serve --threads``): more than the grading slots below, so that page
#: and question reads still find a thread while submits wait for a slot.
DEFAULT_THREADS = 32
#: Write requests (POST, PUT, PATCH, DELETE: submits, checks...) one host serves at once by default, shared
#: by its workers (``quizapp serve --write-threads``, per worker: :func:`default_write_threads`;
#: ``quizapp.serving.worker``). Writes beyond them wait as sockets, so a page read competes for a worker's
#: interpreter with a few submits instead of every one in flight; enough stay in flight for the attempts
#: that wait on the disk to be committed together (one worker with 8 lost 28% of its submits, with 16 none).
WRITES_IN_FLIGHT = 16
#: Fewest write threads a worker gets by default: one grading while another waits to be stored, and more.
MIN_WRITE_THREADS = 4
#: Database connections a worker keeps open (``DB_POOL_SIZE``), and how many more it may open at busy moments
#: (``DB_POOL_OVERFLOW``): a request holds one from its first query to its end, a submit while it waits for
#: the writer's turn too, so a worker needs as many as it has threads, write threads included (the largest
#: ``--threads`` and ``--write-threads`` are 64 each), or its requests queue for a connection instead of a
#: core. With PostgreSQL, keep workers x (threads + write threads) below the server's ``max_connections``
#: (``docs/deploy.md``).
DEFAULT_DB_POOL_SIZE = DEFAULT_THREADS + WRITES_IN_FLIGHT
DEFAULT_DB_POOL_OVERFLOW = 128 - DEFAULT_DB_POOL_SIZE
#: Container allocations between two collections of the garbage collector's youngest generation in a server
#: process (Python's default is 700; ``quizapp.serving.tune_collector`` says why).
GC_YOUNG_THRESHOLD = 50_000
#: Folder under the instance folder where a server keeps its compiled templates (``quizapp.serving.warm_templates``).
TEMPLATE_CACHE_DIR = "jinja-cache"
#: Grading requests (submits, checks) one process runs at once (``GRADING_SLOTS``; ``quizapp.ops.admission``):
#: two, so that one can grade while another waits on the disk.
DEFAULT_GRADING_SLOTS = 2
#: Seconds a grading request waits for a slot before it is answered 503 (``GRADING_SLOT_WAIT``).
DEFAULT_GRADING_SLOT_WAIT = 30.0
#: Elements (all tensors together) of one reference-engine call.
REFERENCE_MAX_ELEMENTS = 1_000_000
#: Items and characters the page-rendering endpoint renders in one request.
RENDER_MAX_ITEMS = 500
RENDER_MAX_CHARS = 200_000
#: Seconds a process trusts its copy of the published questions for changes committed by other processes
#: (``PUBLISHED_SET_RECHECK``; ``quizapp.services.question_cache``): a publish on one worker reaches the
#: others within this, and at once for a question id they did not know.
DEFAULT_PUBLISHED_SET_RECHECK = 1.0
#: Rendered question pages kept per process.
VIEW_CACHE_SIZE = 512
#: Relative addresses a worker keeps built (quizapp.url_memo); the memo starts over when full.
URL_MEMO_SIZE = 4096
#: Characters of a question file previewed on the authoring page.
PREVIEW_MAX_CHARS = 200_000
#: Nodes (aliases expanded) of an author's YAML document (its nesting: ``checkers.limits.YAML_MAX_DEPTH``,
#: which the bank loader checks before building any document).
YAML_MAX_NODES = 100_000
#: Seconds a mock interview gives one question, by level (longer derivations at the higher levels); the
#: page counts them down, the server judges them (``quizapp.mock.timing``).
MOCK_SECONDS_BY_LEVEL = {"L1": 180, "L2": 300, "L3": 480}
#: Seconds after a mock question's budget in which an answer still counts in time (the form's round trip).
MOCK_GRACE_SECONDS = 5
#: Longest a learner's sign-in lasts (days): the "Remember me on this device" cookie's lifetime, and the age
#: past which the server refuses any signed-in session (``quizapp.auth.identity``), remembered or not.
SIGN_IN_MAX_DAYS = 30
#: Where heavy answer kinds grade (``GRADING_BACKEND``): in this process, or through a Redis queue (RQ).
GRADING_BACKENDS = ("local", "rq")
DEFAULT_GRADING_BACKEND = "local"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_GRADING_QUEUE = "grading"
#: Seconds a request waits for a queued verdict (covers a cold grading host starting its code sandbox).
DEFAULT_GRADING_QUEUE_WAIT = 30.0
#: Seconds to connect to Redis before the grading queue counts as down (a 503, not a hung request).
REDIS_CONNECT_TIMEOUT = 2.0
#: Seconds a queued verdict stays in Redis (only the waiting request reads it, at once) and a failed job
#: stays in RQ's failed registry (for an operator to read its traceback).
GRADING_RESULT_TTL = 60
GRADING_FAILURE_TTL = 24 * 3600


def default_write_threads(workers: int) -> int:
    """Write threads per worker when ``quizapp serve`` is not told: the host's :data:`WRITES_IN_FLIGHT`
    shared by its ``workers``, at least :data:`MIN_WRITE_THREADS`."""
    return max(MIN_WRITE_THREADS, WRITES_IN_FLIGHT // max(1, workers))


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        raise RuntimeError(f"environment variable {name} must be an integer, got {raw!r}") from None


def _seconds_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise RuntimeError(f"environment variable {name} must be a number of seconds >= 0, got {raw!r}")
    return value


def _bool_env(name: str, default: bool = False) -> bool:
    raw = (os.environ.get(name) or "").strip().lower()
    if raw == "":
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise RuntimeError(f"environment variable {name} must be true or false, got {raw!r}")


def _choice_env(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = (os.environ.get(name) or "").strip().lower() or default
    if raw not in choices:
        raise RuntimeError(f"environment variable {name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


def from_env(instance_path: str) -> dict[str, Any]:
    """The configuration the environment asks for (defaults filled in; nothing created yet)."""
    default_db = "sqlite:///" + str(Path(instance_path) / "quizapp.sqlite3")
    return {
        "DATABASE_URL": os.environ.get("DATABASE_URL") or default_db,
        "SECRET_KEY": os.environ.get("SECRET_KEY") or None,
        "QUIZ_DEVICE": os.environ.get("QUIZ_DEVICE") or None,
        "MAX_CONTENT_LENGTH": _int_env("MAX_CONTENT_LENGTH", DEFAULT_MAX_CONTENT_LENGTH),
        "SMALL_BODY_LIMIT": SMALL_BODY_LIMIT,
        "QUIZ_BANK_PATH": os.environ.get("QUIZ_BANK_PATH") or str(shipped_folder("questions")),
        "MIGRATIONS_PATH": str(shipped_folder("migrations")),
        "GRADE_TIMEOUT": float(os.environ.get("GRADE_TIMEOUT") or DEFAULT_GRADE_TIMEOUT),
        "GRADING_BACKEND": _choice_env("GRADING_BACKEND", DEFAULT_GRADING_BACKEND, GRADING_BACKENDS),
        "REDIS_URL": os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL,
        "GRADING_QUEUE": os.environ.get("GRADING_QUEUE") or DEFAULT_GRADING_QUEUE,
        "GRADING_QUEUE_WAIT": float(os.environ.get("GRADING_QUEUE_WAIT") or DEFAULT_GRADING_QUEUE_WAIT),
        "PUBLISHED_SET_RECHECK": _seconds_env("PUBLISHED_SET_RECHECK", DEFAULT_PUBLISHED_SET_RECHECK),
        "SQLITE_BUSY_TIMEOUT_MS": _int_env("SQLITE_BUSY_TIMEOUT_MS", 30_000),
        "DB_POOL_SIZE": _int_env("DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE),
        "DB_POOL_OVERFLOW": _int_env("DB_POOL_OVERFLOW", DEFAULT_DB_POOL_OVERFLOW),
        "LEARNER_COOKIE": "quiz_learner",
        "LEARNER_COOKIE_MAX_AGE": 400 * 24 * 3600,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SECURE": _bool_env("SESSION_COOKIE_SECURE"),
        # Flask-Login's "remember me" cookie (opt-in at sign-in): as guarded as the session cookie, and as
        # Secure (``quizapp.auth.identity.setup`` follows a ``SESSION_COOKIE_SECURE`` given to create_app)
        "REMEMBER_COOKIE_DURATION": SIGN_IN_MAX_DAYS * 24 * 3600,
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "REMEMBER_COOKIE_SECURE": _bool_env("SESSION_COOKIE_SECURE"),
        "JSON_SORT_KEYS": False,
        "MOCK_SECONDS_BY_LEVEL": dict(MOCK_SECONDS_BY_LEVEL),
        "MOCK_GRACE_SECONDS": MOCK_GRACE_SECONDS,
    }


def instance_secret_key(instance_path: str) -> str:
    """A random key persisted in the instance folder, so learner cookies survive restarts."""
    path = Path(instance_path) / "secret_key"
    try:
        key = path.read_text().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # O_EXCL: two workers starting at once agree on the first key written
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip() or key
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key
