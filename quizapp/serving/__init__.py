"""The production server behind ``quizapp serve``: gunicorn worker processes on Linux, waitress elsewhere.

One Python process grades on one core; gunicorn runs ``workers`` processes (default: the number of
cores), each with ``threads`` request threads (the ``gthread`` worker), all accepting on one socket.

* **Preloaded app.** The master builds the Flask app once (after migrating and loading the bank), so a
  worker forked from it answers its first request without importing anything. Preloading is skipped when
  the reference engine runs on CUDA: a CUDA context does not survive ``fork``. This is why the maths parser
  (sympy, the larger part of importing the app) stays imported at start: the answer kinds that load the
  bank need it, and a worker gets it for free; imported lazily it would land on a learner's first answer.
* **Warm workers, fast launch** (:mod:`quizapp.serving.warm`): the first workers are forked as soon as the
  app is built; the master then imports the reference engine (torch) in a thread, and every later worker
  (a replacement for a killed one, a rolling restart's) is forked from the warm master, the first ones
  being replaced by warm ones once it is done.
* **Keep-alive is bounded**: a connection is closed after its :data:`MAX_REQUESTS_PER_CONNECTION`-th
  answer, so that clients spread again over the workers (after a worker was killed, those on the
  survivor used to stay there, and its replacement served nobody).
* **Per process after the fork.** Everything holding a file descriptor, a thread or a lock is made again in
  each worker: the SQLAlchemy pool is disposed without closing the parent's connections
  (``engine.dispose(close=False)``, SQLAlchemy's "Using Connection Pools with Multiprocessing"), the
  checkers sandbox pool and the code-run template are pid-aware (:mod:`checkers.sandbox`,
  :mod:`checkers.coderun.runner`), the memos hold no lock a child could inherit (:mod:`checkers.memo`), and the
  Prometheus multiprocess files are per pid (:mod:`quizapp.ops.metrics`).
* **One CPU per worker** when there are as many workers as CPUs (:mod:`quizapp.serving.cpus`): the master
  picks each worker's CPU before the fork, the worker holds itself to it after, and what it starts for
  grading runs on every CPU.
* **Signals** (gunicorn's): ``SIGHUP`` starts new workers and stops the old ones gracefully (a rolling
  restart: requests in flight finish); ``SIGTERM`` stops gracefully within ``graceful_timeout`` seconds;
  ``SIGINT``/``SIGQUIT`` stop at once.

The line ``serving on http://HOST:PORT/`` is printed once the socket listens (scripts and tests wait for it).
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import sys
import tempfile
import threading
from typing import Any, Callable, Sequence

from flask import Flask

from . import cpus
from ..config import GC_YOUNG_THRESHOLD, TEMPLATE_CACHE_DIR
from ..ops import after_fork as ops_after_fork, metrics, request_id
from ..ops.metrics import worker_exited
from ..storage import db

log = logging.getLogger(__name__)


def gunicorn_available() -> bool:
    """gunicorn needs ``fork`` and ``fcntl`` (Linux, macOS); waitress runs everywhere else."""
    if sys.platform.startswith("win"):
        return False
    try:
        import gunicorn  # noqa: F401  # local: an optional server; its absence means waitress
    except ImportError:
        return False
    return True


def default_workers() -> int:
    """One worker per core this process may run on (:func:`quizapp.serving.cpus.allowed_cpus`, else the
    machine's count)."""
    return len(cpus.allowed_cpus()) or max(1, os.cpu_count() or 1)


def preload_is_safe(app: Flask) -> bool:
    device = str(app.config.get("QUIZ_DEVICE") or "cpu")
    return not device.startswith("cuda")


def warm_templates(app: Flask) -> None:
    """Compile every template of ``app`` now, once the app is built and before requests come: in the master
    before gunicorn forks the workers (which then inherit them compiled), in a worker that builds its own app,
    before waitress serves.

    Otherwise each new worker compiled the forty templates on its first pages (about 0.5 s of CPU), and the
    requests arriving meanwhile compiled the same templates at the same time: after every start or rolling
    restart under load, page answers took 0.4-0.65 s. The compiled code is kept on disk under
    ``<instance>/TEMPLATE_CACHE_DIR`` (Jinja's bytecode cache, keyed by each template's source checksum), so a
    later start loads it in about 30 ms; where that folder cannot be written, templates are compiled anyway. A
    template that does not compile is logged and left to fail on its own page, as before."""
    from jinja2 import FileSystemBytecodeCache, TemplateError  # local: only serving warms templates

    env = app.jinja_env
    try:
        names = env.list_templates()
    except TypeError:  # a loader that cannot list its templates: they compile on first use
        return

    def compile_all() -> None:
        for name in names:
            try:
                env.get_template(name)
            except TemplateError:
                log.exception("template %s does not compile", name)

    folder = os.path.join(app.instance_path, TEMPLATE_CACHE_DIR)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        env.bytecode_cache = FileSystemBytecodeCache(folder)
        compile_all()
    except OSError:  # a read-only instance folder: what is not compiled yet is compiled without the cache
        env.bytecode_cache = None
        compile_all()
    finally:
        env.bytecode_cache = None  # requests never write there: every template is compiled now


def tune_collector(*, collect: bool = True) -> None:
    """Set the cyclic garbage collector for serving: called once the app is built, in the master just
    before gunicorn forks the workers (in each worker when it builds its own app), and before waitress serves.

    * Every object alive now (the app, sympy, torch, the bank: about 150,000 tracked containers) goes to the
      collector's permanent generation (``gc.freeze``, Python's ``gc`` documentation, which also keeps the
      collector from writing to pages the workers share with the master): a full collection no longer walks
      them. One such walk took about 80 ms with the interpreter lock held, every request of the worker
      stopped meanwhile, and under load those pauses made the slowest page answers.
    * The youngest generation is collected after ``GC_YOUNG_THRESHOLD`` container allocations instead of
      Python's 700. A request holds a few thousand containers at its peak, so at 700 the collector ran about
      six times per request, and promoted the request's objects, still alive, to the older generations,
      whose collections were then slow too (7% of the CPU time of pages and submits, in process). At 50,000 the
      request's objects are freed by reference counting first, and little is left to collect.

    ``collect=False`` skips the full collection that comes first (60-90 ms of the launch): the master that
    warms itself (:mod:`quizapp.serving.warm`) collects and freezes again in its thread, before any later
    fork, and its first workers, which carry that garbage, are replaced once it is done.
    """
    if collect:
        gc.collect()  # what is garbage already is not kept for ever
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


#: Answers on one keep-alive connection before the server closes it (``Connection: close`` on the last):
#: the client's next connection is accepted by whichever worker is free first, so a replacement worker
#: gets its share of clients within a few hundred requests instead of never. One new TCP connection per
#: hundred requests costs nothing measurable (nginx's ``keepalive_requests`` bounds it the same way).
MAX_REQUESTS_PER_CONNECTION = 100


#: Seconds after a warm worker boots before it starts its grader pool (quizapp.serving.warm): its first
#: answers come first.
GRADER_POOL_DELAY = 1.0


def bound_keepalive(_worker, req) -> None:
    """gunicorn's ``pre_request`` hook: the :data:`MAX_REQUESTS_PER_CONNECTION`-th request of a connection
    is its last (``req.req_number`` counts the requests parsed on the connection, from 1)."""
    if req.req_number >= MAX_REQUESTS_PER_CONNECTION:
        req.must_close = True


def start_grader_pool(delay: float = 0.0) -> threading.Thread:
    """Start this process's grader pool (:mod:`checkers.sandbox`) in a thread, ``delay`` seconds from now: its
    fork server imports sympy and the checkers (about a second of a core), which the first symbolic check
    would otherwise wait for. A failure is left for that check to meet and report, as before."""
    from checkers import sandbox  # local: imported with the app already; only warm workers start it early

    def run() -> None:
        try:
            sandbox.get_pool().start()
        except Exception:  # noqa: BLE001 - the first check starts it again and reports its own error
            log.warning("starting the grader pool early failed", exc_info=True)

    thread = threading.Timer(delay, run)
    thread.name, thread.daemon = "quiz-start-grader-pool", True
    thread.start()
    return thread


def after_fork(app: Flask) -> None:
    """Run in each new worker: drop what the master's connections and caches left in this process."""
    database = app.extensions.get(db.EXTENSION_KEY)
    if database is not None:
        # close=False: the sockets/files belong to the master too; closing them here would break its state.
        database.engine.dispose(close=False)
    ops_after_fork(app)


#: Exited workers not counted yet (pid, whether it counts as a restart), and whether a count is running
#: (see :func:`child_exit`).
_exits_pending: list[tuple[int, bool]] = []
_counting_exits = False


def child_exit(_server, worker) -> None:
    """gunicorn's hook in the master when a worker has exited: count it (``/metrics``), unless a warm worker
    replaced it (``quiz_retired_cold``, :mod:`quizapp.serving.warm`: that is part of starting, not a restart).

    gunicorn runs it inside its SIGCHLD handler. Counting takes locks (the metrics' own and their value
    files'), and a second SIGCHLD handled while they are held (the two retiring workers of a rolling
    restart exit together) ran this again on the same thread, which then waited for itself for ever: the
    master hung and never handled the next signal. So a call made while another is counting only queues
    its worker; the running one counts it before it returns. (Blocking SIGCHLD meanwhile is not enough: a
    process may take the signal on another of its threads.)"""
    global _counting_exits
    _exits_pending.append((worker.pid, not getattr(worker, "quiz_retired_cold", False)))
    while not _counting_exits and _exits_pending:
        _counting_exits = True
        try:
            while _exits_pending:
                pid, restart = _exits_pending.pop(0)
                worker_exited(pid, restart=restart)
        finally:
            _counting_exits = False
        # a worker queued between the last count and the line above is counted by the next round


def serve_gunicorn(app: Flask, *, host: str, port: int, workers: int, threads: int,
                   announce: Callable[[str], None], db_label: str = "", graceful_timeout: int = 30,
                   app_factory: Callable[[], Flask] | None = None, write_threads: int = 0,
                   pin_cpus: Sequence[int] = ()) -> None:
    """Serve ``app`` with gunicorn until the master is stopped. ``app_factory`` builds the app in each
    worker instead when preloading is not safe. ``write_threads``: the pool of each worker that serves
    write requests, besides the ``threads`` serving the others (:mod:`quizapp.serving.worker`); 0 serves
    every request from the ``threads``. ``pin_cpus``: the CPUs the workers are held to, one each
    (:mod:`quizapp.serving.cpus`); empty leaves them free."""
    from gunicorn.app.base import BaseApplication  # local: gunicorn is imported only where it serves
    from gunicorn.arbiter import Arbiter  # local: the same

    from .warm import WarmingArbiter  # local: imports gunicorn

    preload = app_factory is None or preload_is_safe(app)
    def when_ready(_server) -> None:
        writes = f" + {write_threads} for writes" if write_threads else ""
        pinned = f", held to CPUs {','.join(map(str, pin_cpus))}" if pin_cpus else ""
        announce(f"serving on http://{host}:{port}/ ({workers} worker(s) x {threads} threads{writes}{pinned}, "
                 f"database {db_label})")

    def pre_fork(server, worker) -> None:
        if isinstance(server, WarmingArbiter):
            server.before_fork(worker)  # waits for the engine's import in progress (quizapp.serving.warm)
        if pin_cpus:
            cpus.assign(server, worker, pin_cpus)

    def post_fork(_server, worker) -> None:
        if pin_cpus:
            cpus.hold(worker, pin_cpus)
        worker.write_threads = write_threads  # the worker makes its pool (quizapp.serving.worker)
        if preload:
            after_fork(app)
        if getattr(worker, "quiz_warm", False):
            start_grader_pool(GRADER_POOL_DELAY)

    def post_worker_init(worker) -> None:
        if not preload:  # the worker built its own app
            warm_templates(worker.wsgi)
            tune_collector()

    def worker_exit(_server, worker) -> None:
        leave = getattr(worker, "leave", None)  # quizapp.serving.worker: exit without finalising the heap
        if leave is not None:
            leave()

    options: dict[str, Any] = {
        "bind": f"{host}:{port}",
        "workers": workers,
        "threads": threads,
        "worker_class": "quizapp.serving.worker.DrainingThreadWorker",  # gthread that drains on a graceful stop
        "preload_app": preload,
        "graceful_timeout": graceful_timeout,
        # A request grades within GRADE_TIMEOUT; a worker silent for much longer than that is stuck.
        "timeout": max(60, int(float(app.config.get("GRADE_TIMEOUT", 10)) * 4)),
        "keepalive": 5,
        "pre_request": bound_keepalive,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": os.environ.get("GUNICORN_LOGLEVEL", "info"),
        "proc_name": "quizapp",
        "when_ready": when_ready,
        "pre_fork": pre_fork,
        "post_fork": post_fork,
        "post_worker_init": post_worker_init,
        "child_exit": child_exit,  # module level: see its docstring
        "worker_exit": worker_exit,
    }

    class _Application(BaseApplication):
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings and value is not None:
                    self.cfg.set(key, value)

        def load(self) -> Flask:
            return app if preload else app_factory()  # type: ignore[misc]

        def run(self) -> None:  # BaseApplication.run with the warming master where the app is preloaded
            try:
                (WarmingArbiter if preload else Arbiter)(self).run()
            except RuntimeError as exc:
                print(f"\nError: {exc}\n", file=sys.stderr)
                sys.stderr.flush()
                sys.exit(1)

    # Each worker counts its own requests: /metrics sums the per-process files of this folder.
    own_folder = None if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else tempfile.mkdtemp(prefix="quizapp-metrics-")
    metrics.enable_multiprocess(own_folder or os.environ["PROMETHEUS_MULTIPROC_DIR"])
    app.config["RATELIMIT_WORKERS"] = workers  # in-memory limits: each worker keeps 1/workers of a budget
    if os.environ.get("QUIZ_LOG_JSON", "1") != "0":
        request_id.configure_logging()
    if preload:
        database = app.extensions.get(db.EXTENSION_KEY)
        if database is not None:
            database.engine.dispose()  # the master keeps no connection the workers could inherit
        warm_templates(app)
        tune_collector(collect=False)  # the warming master collects in its thread (quizapp.serving.warm)
    master_pid = os.getpid()
    try:
        _Application().run()
    finally:
        # gunicorn forks each worker from inside run(), and a worker leaves by sys.exit: its SystemExit
        # unwinds this same frame in the worker. Only the master removes the folder, after run() has
        # returned, that is after its last worker was reaped; a worker removing it would take the master's
        # and its siblings' files with it (child_exit then failed on SIGTERM, and counts broke on SIGHUP).
        if own_folder and os.getpid() == master_pid:
            shutil.rmtree(own_folder, ignore_errors=True)


def serve_waitress(app: Flask, *, host: str, port: int, threads: int, announce: Callable[[str], None],
                   db_label: str = "") -> None:
    """One process, ``threads`` request threads: where gunicorn cannot run, or asked for."""
    import waitress  # local: waitress is imported only where it serves

    if os.environ.get("QUIZ_LOG_JSON", "1") != "0":
        request_id.configure_logging()  # JSON lines on stderr; waitress's warnings (queue depth...) among them
    else:
        logging.basicConfig()  # as waitress.serve does: its warnings (queue depth...) reach stderr
    # Bind first, then say so: the line means the port accepts connections.
    server = waitress.create_server(app, host=host, port=port, threads=threads, ident="quizapp")
    warm_templates(app)
    tune_collector()
    announce(f"serving on http://{host}:{port}/ (waitress, {threads} threads, database {db_label})")
    server.run()
