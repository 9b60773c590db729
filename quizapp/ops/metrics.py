"""Prometheus metrics at ``GET /metrics`` (prometheus-client, text exposition format 0.0.4).

=====================================  ===================================================================
``quizapp_request_seconds``            histogram of request latency, labels ``endpoint`` (Flask endpoint
                                       name, bounded set) and ``method``
``quizapp_requests_total``             counter, labels ``endpoint``, ``method``, ``status``
``quizapp_grading_seconds``            histogram of grading one answer part, label ``kind``
``quizapp_sandbox_kills_total``        counter of grader children killed or found dead, label ``reason``
``quizapp_worker_restarts_total``      counter of server workers that exited and were replaced (master)
=====================================  ===================================================================

Several worker processes: gunicorn forks workers that each count on their own, so the served process
uses prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, set by ``quizapp serve`` to a
fresh folder before the workers start): each process writes its values to memory-mapped files there and
``/metrics`` sums them over every process, whichever worker answers the scrape. Metrics are created on
first use in each process, never at import, so a worker forked from the master makes its own.
"""

from __future__ import annotations

import glob
import os
import shutil
import struct
import threading
import time
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess, values
from prometheus_client.mmap_dict import MmapedDict

from checkers import sandbox

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

_lock = threading.Lock()
_metrics: dict[str, Any] | None = None
_owner_pid: int | None = None


def enable_multiprocess(folder: str) -> None:
    """Before the workers fork: every process writes its values under ``folder`` (emptied first, so a
    restarted server does not add the previous run's counts)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    values.ValueClass = values.get_value_class()  # the file-backed value, also if imported earlier
    after_fork()


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def _get() -> dict[str, Any]:
    global _metrics, _owner_pid
    with _lock:
        if _metrics is None or _owner_pid != os.getpid():
            registry = CollectorRegistry(auto_describe=True)  # ours only: creating twice never clashes
            _metrics = {
                "registry": registry,
                "request": Histogram("quizapp_request_seconds", "Request latency by endpoint",
                                     ["endpoint", "method"], buckets=_LATENCY_BUCKETS, registry=registry),
                "requests": Counter("quizapp_requests_total", "Requests by endpoint and status",
                                    ["endpoint", "method", "status"], registry=registry),
                "grading": Histogram("quizapp_grading_seconds", "Grading latency of one part by answer kind",
                                     ["kind"], buckets=_LATENCY_BUCKETS, registry=registry),
                "kills": Counter("quizapp_sandbox_kills_total", "Grader children killed or found dead",
                                 ["reason"], registry=registry),
                "restarts": Counter("quizapp_worker_restarts_total", "Server workers that exited",
                                    registry=registry),
                "children": {},  # (metric, *label values) -> its child, see _child
            }
            _owner_pid = os.getpid()
        return _metrics


def after_fork() -> None:
    """Forget the parent's metric objects; the next use in this process makes new ones."""
    global _metrics, _owner_pid, _lock
    _lock = threading.Lock()
    _metrics = None
    _owner_pid = None


#: Children kept by _child at most (label values come from bounded sets, but a method is any token a client
#: sends): beyond this, each use asks its metric again.
MAX_KEPT_CHILDREN = 4096


def _child(name: str, *values: str) -> Any:
    """The child of metric ``name`` for these label values (in the metric's label order): asked of the metric
    once and kept, since ``labels()`` checks and joins the values and takes the metric's lock on every call,
    three times per submit."""
    m = _get()
    kept = m["children"]
    key = (name, *values)
    child = kept.get(key)
    if child is None:
        child = m[name].labels(*values)
        if len(kept) < MAX_KEPT_CHILDREN:
            kept[key] = child
    return child


def observe_grading(kind: str, seconds: float) -> None:
    _child("grading", str(kind)[:40]).observe(seconds)


def count_kill(reason: str) -> None:
    _get()["kills"].labels(reason=str(reason)[:40]).inc()


def worker_exited(pid: int, *, restart: bool = True) -> None:
    """In the gunicorn master when a worker exits: its live-gauge files go, the restart is counted (not
    when ``restart`` is false: a cold worker of the start retired for a warm one, quizapp.serving.warm)."""
    folder = multiprocess_dir()
    if folder:
        multiprocess.mark_process_dead(pid, folder)
    if restart:
        _get()["restarts"].inc()


def _begin() -> None:
    g.metrics_started = time.perf_counter()


def _end(response):
    started = g.get("metrics_started")
    if started is not None:
        endpoint = request.endpoint or "unmatched"  # a 404 path must not make a label of its own
        method = request.method
        _child("request", endpoint, method).observe(time.perf_counter() - started)
        _child("requests", endpoint, method, str(response.status_code)).inc()
    return response


class _SettledFilesCollector(multiprocess.MultiProcessCollector):
    """The multiprocess collector, reading only the value files that can be read whole: a worker forked a
    moment ago may still be creating its file (empty, or without its header yet), and one such file must
    not turn the whole scrape into a 500 during a rolling restart. Such a file holds no counts yet."""

    def collect(self):
        files = []
        for path in glob.glob(os.path.join(self._path, "*.db")):
            try:
                MmapedDict.read_all_values_from_file(path)
            except (OSError, ValueError, struct.error):  # being created (or removed) by another process
                continue
            files.append(path)
        return self.merge(files, accumulate=True)


def render() -> tuple[bytes, str]:
    folder = multiprocess_dir()
    if folder:
        registry = CollectorRegistry()
        _SettledFilesCollector(registry, path=folder)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(_get()["registry"]), CONTENT_TYPE_LATEST


def metrics_view():
    body, content_type = render()
    return Response(body, content_type=content_type)


def init_app(app: Flask) -> None:
    app.before_request(_begin)
    app.after_request(_end)
    app.add_url_rule("/metrics", "ops_metrics", metrics_view, methods=["GET"])
    sandbox.add_kill_listener(count_kill)
