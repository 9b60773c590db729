"""The bare Flask endpoints bench_load.py measures the service against, served by the same gunicorn
settings (workers held to a CPU each as ``quizapp serve`` holds them, :mod:`quizapp.serving.cpus`):
``GET /bare/json`` (a constant JSON body) and ``POST /bare/insert`` (the request body inserted into a
SQLite table with the service's pragmas: WAL, busy timeout, ``synchronous`` as the service)."""

from __future__ import annotations

import os
import sqlite3
import threading

from flask import Flask, jsonify, request

_local = threading.local()


def _conn() -> sqlite3.Connection:
    conn = getattr(_local, "conn", None)
    if conn is None or getattr(_local, "pid", None) != os.getpid():
        conn = sqlite3.connect(os.environ["BARE_DB"], timeout=30, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute(f"PRAGMA synchronous = {os.environ.get('BARE_SYNC', 'FULL')}")
        conn.execute("CREATE TABLE IF NOT EXISTS bare (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        _local.conn, _local.pid = conn, os.getpid()
    return conn


def create_app() -> Flask:
    app = Flask(__name__)

    @app.get("/bare/json")
    def bare_json():
        return jsonify({"ok": True})

    @app.post("/bare/insert")
    def bare_insert():
        body = request.get_data(as_text=True)
        cur = _conn().execute("INSERT INTO bare (body) VALUES (?)", (body,))
        return jsonify({"id": cur.lastrowid}), 201

    return app


if __name__ == "__main__":  # python benchmarks/bare_app.py PORT WORKERS THREADS
    import sys

    from gunicorn.app.base import BaseApplication

    from quizapp.serving import cpus as serving_cpus

    port, workers, threads = (int(x) for x in sys.argv[1:4])
    cpus = serving_cpus.cpus_to_pin(workers, None)

    class _App(BaseApplication):
        def load_config(self):
            for k, v in {"bind": f"127.0.0.1:{port}", "workers": workers, "threads": threads,
                         "worker_class": "gthread", "preload_app": True, "accesslog": None,
                         "when_ready": lambda _s: print(f"serving on http://127.0.0.1:{port}/", flush=True),
                         "pre_fork": lambda server, worker: cpus and serving_cpus.assign(server, worker, cpus),
                         "post_fork": lambda _s, worker: cpus and serving_cpus.hold(worker, cpus)}.items():
                self.cfg.set(k, v)

        def load(self):
            return create_app()

    _App().run()
