"""The gunicorn worker ``quizapp serve`` runs: gthread, draining its accepted connections on a graceful stop.

gunicorn's gthread worker accepts a connection, then waits in its event loop for the request to arrive
before handing it to a thread. On a graceful stop (SIGTERM, and so each old worker of a SIGHUP rolling
restart) it leaves that loop at once and closes every connection whose request it had not started: a client
whose connection it had just accepted gets a reset instead of an answer, although the restart is meant to
lose nothing. This worker stops *accepting* first, keeps its loop running until each connection it had
accepted has been served (or the graceful timeout has passed), and only then exits as gthread does. Idle
keep-alive connections carry no request and are closed at once, as before.

The master sends SIGTERM again on each of its rounds until a retiring worker is gone; one that arrived
while the worker's interpreter was shutting down (its handlers already reset) ended it by the signal, and
the master logged an ERROR for an orderly exit. Once its loop is done the worker blocks SIGTERM.

Leaving: after gunicorn's own clean-up (its ``worker_exit`` hook, :meth:`DrainingThreadWorker.leave`) a
worker whose loop ended normally runs the exit handlers (the grader pool stops its children), flushes its
logs and exits at once. The interpreter's finalisation, which it skips, spent about four seconds freeing a
heap the kernel frees in no time, and so held up every stop and restart of the server.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import sys
import time

from gunicorn.workers.gthread import ThreadWorker


class DrainingThreadWorker(ThreadWorker):
    """:class:`gunicorn.workers.gthread.ThreadWorker` that serves what it accepted before it stops."""

    draining_until: float | None = None
    accepting: bool = True
    served_to_the_end: bool = False

    def run(self) -> None:
        super().run()
        # Done: what follows is the process's own exit, which a repeated SIGTERM must not cut short.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        self.served_to_the_end = True

    def leave(self) -> None:
        """gunicorn's ``worker_exit`` hook (module docstring). Any other way out (a failed boot, an error)
        keeps gunicorn's exit and its status."""
        if not self.served_to_the_end:
            return
        atexit._run_exitfuncs()  # what the interpreter's exit would run, in the same order
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(0)

    def handle_exit(self, sig, frame) -> None:
        # Only a deadline here (a signal handler): the event loop does the rest between two of its rounds.
        # Half the graceful timeout: the requests in flight then still have the other half, as in gthread.
        if self.draining_until is None:
            self.draining_until = time.monotonic() + float(self.cfg.graceful_timeout) / 2

    def murder_keepalived(self) -> None:
        """Called by the event loop once per round: gthread's housekeeping, then the drain's next step."""
        super().murder_keepalived()
        if self.draining_until is None or not self.alive:
            return
        if self.accepting:
            self.accepting = False
            for sock in self.sockets:  # the other workers (or the new ones) take the new clients
                try:
                    self.poller.unregister(sock)
                except (KeyError, ValueError, OSError):
                    pass
            self.max_keepalived = 0  # every answer from now on closes its connection
        self._close_idle_keepalive()
        # nr_conns: accepted connections not finished yet (the idle keep-alive ones were just closed)
        if self.nr_conns <= 0 or time.monotonic() >= self.draining_until:
            self.alive = False

    def _close_idle_keepalive(self) -> None:
        with self._lock:
            idle = list(self._keep)
            self._keep.clear()
        for conn in idle:
            self.nr_conns -= 1
            with self._lock:
                try:
                    self.poller.unregister(conn.sock)
                except (KeyError, ValueError, OSError):
                    pass
            conn.close()
