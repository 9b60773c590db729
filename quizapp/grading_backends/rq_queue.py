"""Grading hosts behind a Redis queue (RQ): enqueue the answer, wait a bounded time for the verdict.

The job is ``checkers.jobs.grade`` / ``checkers.jobs.check`` named by string (the web host never runs it),
its arguments and reply JSON (RQ's JSON serializer: nothing read back from Redis is unpickled). Bounds:

* connecting to Redis: ``REDIS_CONNECT_TIMEOUT`` seconds, then ``grading_unavailable``;
* the verdict: ``GRADING_QUEUE_WAIT`` seconds from enqueueing (a blocking read of the job's result stream);
  the job itself expires unstarted after the same time (``ttl``) and is killed on the worker after it
  (``job_timeout``), so a queue with no worker does not pile up work for a worker that arrives later;
* on time-out a job still queued is removed; one a worker took runs on and its result is never read: the caller
  stores ``undecided`` or answers 503, and nothing is graded twice into an attempt.
"""

from __future__ import annotations

import builtins
import logging
import math
from typing import Any, Mapping

import redis
from checkers.jobs import verdict_from
from checkers.kinds import Kind
from checkers.verdict import Verdict
from rq import Queue, Worker
from rq.results import Result
from rq.serializers import JSONSerializer

from .. import config as _config
from ..i18n import Message, N_
from ..httpkit.jsonio import json_safe
from . import GradingUnavailable

log = logging.getLogger(__name__)

#: What a job may report as raised (``checkers.jobs.REPORTED``): re-raised here as that builtin type under the
#: reported class name, so a call site answers exactly as it does for in-process grading.
_RERAISED = {name: getattr(builtins, name) for name in ("RuntimeError", "ValueError", "TypeError", "IndexError")}


def _reraised(raised: Mapping[str, Any]) -> Exception:
    base = _RERAISED.get(raised.get("base"), RuntimeError)
    name = raised.get("type")
    cls = type(name, (base,), {}) if isinstance(name, str) and name.isidentifier() and len(name) <= 100 else base
    return cls(str(raised.get("message") or "grading raised"))


class RQBackend:
    name = "rq"

    def __init__(self, *, url: str, queue: str, wait: float):
        self.wait = max(1, math.ceil(wait))  # RQ blocks in whole seconds
        # The socket timeout outlasts the blocking read of the result, so only a dead Redis trips it.
        self.redis = redis.Redis.from_url(url, socket_connect_timeout=_config.REDIS_CONNECT_TIMEOUT,
                                          socket_timeout=self.wait + _config.REDIS_CONNECT_TIMEOUT + 1)
        self.queue = Queue(queue, connection=self.redis, serializer=JSONSerializer)

    def grade(self, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None, kind: Kind | None = None) -> Verdict:
        # kind stays here: the grading host looks the part's kind up in its own registry (a job is JSON)
        return self._run("checkers.jobs.grade", raw, part, params, timeout=timeout)

    def check(self, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *,
              kind: Kind | None = None) -> Verdict | None:
        return self._run("checkers.jobs.check", raw, part, params)

    def _run(self, func: str, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], **extra: Any):
        kwargs = {"raw": json_safe(raw), "part": json_safe(part), "params": json_safe(params), **extra}
        try:
            job = self.queue.enqueue(func, kwargs=kwargs, job_timeout=self.wait, ttl=self.wait,
                                     result_ttl=_config.GRADING_RESULT_TTL,
                                     failure_ttl=_config.GRADING_FAILURE_TTL,
                                     description=f"{func} {part.get('kind')} part {part.get('id')!r}")
        except (redis.RedisError, OSError) as exc:
            log.warning("grading queue unreachable: %s", exc)
            raise GradingUnavailable(Message(N_("the grading queue is unreachable; retry shortly")),
                                     code="grading_unavailable") from None
        try:
            result = job.latest_result(timeout=self.wait)
        except (redis.RedisError, OSError) as exc:
            log.warning("grading queue lost while waiting for job %s: %s", job.id, exc)
            raise GradingUnavailable(Message(N_("the grading queue stopped answering; retry shortly")),
                                     code="grading_unavailable") from None
        if result is None:
            self._abandon(job)
            raise GradingUnavailable(Message(N_("no grading host answered within %(seconds)s s; retry shortly"),
                                             seconds=self.wait),
                                     code="grading_timeout")
        if result.type != Result.Type.SUCCESSFUL:
            log.error("grading job %s ended %s: %s", job.id, result.type.name, (result.exc_string or "")[-2000:])
            raise GradingUnavailable(Message(N_("the grading host could not grade this answer; retry shortly")),
                                     code="grading_failed")
        reply = result.return_value
        if not isinstance(reply, dict):
            log.error("grading job %s replied %r", job.id, type(reply).__name__)
            raise GradingUnavailable(Message(N_("the grading host replied nonsense; retry shortly")),
                                     code="grading_failed")
        if "raised" in reply:
            raise _reraised(reply["raised"] or {})
        verdict = reply.get("verdict")
        return None if verdict is None else verdict_from(verdict)

    def readiness(self) -> dict[str, Any]:
        """Redis answers and at least one grading host listens on the queue (else every code answer would
        wait out ``GRADING_QUEUE_WAIT`` and come back undecided)."""
        try:
            self.redis.ping()
            workers = Worker.count(connection=self.redis, queue=self.queue)
        except (redis.RedisError, OSError) as exc:
            return {"ok": False, "error": type(exc).__name__}
        return {"ok": workers > 0, "queue": self.queue.name, "workers": workers}

    def _abandon(self, job) -> None:
        """Take a job nobody answered off the queue; one a worker already took runs on, its result unread."""
        try:
            if self.queue.remove(job.id):  # still queued: no worker will ever see it
                self.redis.delete(job.key)  # (already gone when its ttl ran out first)
        except (redis.RedisError, OSError) as exc:  # the job still expires unstarted after its ttl
            log.info("grading job %s not removed: %s", job.id, exc)
