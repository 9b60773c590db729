"""The gunicorn worker ``quizapp serve`` runs: gthread, draining its accepted connections on a graceful stop,
and handing a connection whose request has arrived to a thread as it accepts it.

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

Accepting: gthread registers each new connection with its event loop and hands it to a thread on the next
round, once the request is readable. Under load that round waits for the interpreter like every thread of
the worker, and nearly every client sends its request with the connection; so this worker peeks at the
socket when it accepts and hands a connection whose request is there to a thread at once (measured with two
workers, 32 clients submitting and one reading pages: page p90 84-92 -> 72-84 ms, submits +13%). A
connection with nothing to read yet goes to the event loop as in gthread, so idle clients hold no thread.

Fewer calls into the kernel per request: each of them gives the worker's interpreter up to its other threads,
which under load costs a wait to take it back and caches the other threads have cooled. A connection whose
request has arrived is left blocking as ``accept()`` made it (:class:`ArrivedConn`: gthread made every new
socket non-blocking, then blocking again before its thread read it, two ``ioctl`` calls per request), and
the event loop touches its heartbeat file at most once a second (:data:`HEARTBEAT_EVERY`; gthread did at
every round of its loop, about once per request under load) -- the master's timeout is a minute.

Reads before writes: a request that changes something or is graded (``POST``, ``PUT``, ``PATCH``,
``DELETE``) is served by a pool of its own, ``write_threads`` threads (``quizapp serve --write-threads``),
and every other request (pages, question reads, health) by gthread's pool of ``threads``. A submit holds the
interpreter for milliseconds (parsing, grading, storing, answering) and a worker under a burst of them had
every one of its threads at it, a page read taking its turn for the interpreter after each of them at every
step (a page under load cost 7.5 ms of CPU but 34 ms inside the worker at the median). With writes held to
a few threads, the others wait as sockets in the pool's queue, holding nothing, and a read competes with at
most ``write_threads`` of them. Measured with two workers, 32 clients submitting and one reading pages, in
paired runs: 8 write threads took page p99 137 -> 83 ms at the same submit rate, 4 took it to 63 ms for 12%
fewer submits. The method is told from the request's first byte, peeked as the connection is handed to a
thread (for a keep-alive connection, when its next request arrives). Behind TLS terminated by gunicorn
itself the bytes are encrypted: every request then goes to the one pool, as in gthread.

Leaving: after gunicorn's own clean-up (its ``worker_exit`` hook, :meth:`DrainingThreadWorker.leave`) a
worker whose loop ended normally runs the exit handlers (the grader pool stops its children), flushes its
logs and exits at once. The interpreter's finalisation, which it skips, spent about four seconds freeing a
heap the kernel frees in no time, and so held up every stop and restart of the server.
"""

from __future__ import annotations

import atexit
import errno
import json
import logging
import os
import selectors
import signal
import socket
import sys
import time
from concurrent import futures
from functools import partial

from gunicorn import http as gunicorn_http
from gunicorn import util as gunicorn_util
from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn.workers.gthread import TConn, ThreadWorker

#: First bytes of the methods served by the write pool (POST, PUT, PATCH, DELETE); no other method starts so.
WRITE_METHOD_STARTS = frozenset({b"P", b"D"})


#: Seconds between two touches of the worker's heartbeat file (gunicorn's ``notify``): the master replaces
#: a worker silent for its ``timeout`` (a minute at least, ``quizapp.serving.serve_gunicorn``).
HEARTBEAT_EVERY = 1.0


class ArrivedConn(TConn):
    """gthread's connection, for a socket whose request has already arrived and that goes to a thread at once
    (:meth:`DrainingThreadWorker.accept`): left blocking, as ``accept()`` made it. gthread's ``TConn`` makes
    it non-blocking when made and blocking again in ``init()``; this one only makes it blocking again when
    it was made non-blocking meanwhile (gthread does so while a kept-alive connection waits in the loop)."""

    def __init__(self, cfg, sock: socket.socket, client, server) -> None:  # TConn's, without setblocking(False)
        self.cfg, self.sock, self.client, self.server = cfg, sock, client, server
        self.timeout = None
        self.parser = None
        self.initialized = False

    def init(self) -> None:
        if self.sock.gettimeout() is not None or self.cfg.is_ssl:  # non-blocking again (kept alive), or TLS
            super().init()
            return
        self.initialized = True
        if self.parser is None:
            self.parser = gunicorn_http.RequestParser(self.cfg, self.sock, self.client)


#: Error codes of the envelope for the statuses gunicorn answers itself, before the app sees the request.
_GUNICORN_ERROR_CODES = {400: "bad_request", 403: "forbidden", 431: "request_header_fields_too_large",
                         500: "internal_error", 501: "not_implemented"}


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own error answer (an oversized or malformed request line or header, which the app never
    sees) in the API's JSON envelope instead of gunicorn's HTML page: clients parse one error format."""
    body = json.dumps({"error": {"code": _GUNICORN_ERROR_CODES.get(status_int, "bad_request"),
                                 "message": mesg or reason, "field": None}}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    gunicorn_util.write_nonblock(sock, head + body)


class OneSendResponse(gunicorn_wsgi.Response):
    """gunicorn's response, whose head and body go out in one ``send`` when the body is one piece of known
    length (as Flask answers, JSON and pages alike): gunicorn sends the head, then each body piece, in a
    call each, and every call into the kernel gives the worker's interpreter up to its other threads and
    waits to take it back. Paired with gunicorn's two sends (64 clients submitting, 20 requests each, load
    average 2.9-5.7 on the two cores): one worker answered more submits in 6 of 7 rounds (one even), +11% at
    the median; two workers +6% (3 of 5 rounds), inside the machine's drift. A streamed body sends its head
    with its first piece; an empty one, a chunked one or a piece past ``Content-Length`` (which gunicorn
    cuts) go gunicorn's way: the bytes on the wire are gunicorn's, byte for byte."""

    def write(self, arg: bytes) -> None:
        if (self.headers_sent or self.chunked or type(arg) is not bytes
                or (self.response_length is not None and self.sent + len(arg) > self.response_length)):
            return super().write(arg)
        tosend = self.default_headers()  # gunicorn's send_headers, sent with the body
        tosend.extend(["%s: %s\r\n" % (k, v) for k, v in self.headers])
        head = gunicorn_util.to_bytestring("%s\r\n" % "".join(tosend), "latin-1")
        self.headers_sent = True
        self.sent += len(arg)
        gunicorn_util.write(self.sock, head + arg)


def _first_byte(sock: socket.socket) -> bytes:
    """The first byte waiting on ``sock``, left there (``b""``: nothing yet, closed, or an error)."""
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:
        return b""


class DrainingThreadWorker(ThreadWorker):
    """:class:`gunicorn.workers.gthread.ThreadWorker` that serves what it accepted before it stops."""

    draining_until: float | None = None
    heartbeat_at: float = float("-inf")
    accepting: bool = True
    served_to_the_end: bool = False
    #: Threads serving write requests (set by :func:`quizapp.serving.serve_gunicorn` in its ``post_fork``
    #: hook); 0 serves every request from gthread's one pool.
    write_threads: int = 0
    write_pool: futures.ThreadPoolExecutor | None = None

    def init_process(self) -> None:
        # gunicorn writes its own errors through util.write_error (one function, used for nothing else): in a
        # worker of ours they take the API's JSON envelope.
        gunicorn_util.write_error = write_json_error
        gunicorn_wsgi.Response = OneSendResponse  # what gunicorn_wsgi.create makes for each request
        if self.write_threads > 0 and not self.cfg.is_ssl:  # made in the worker: threads do not survive fork
            self.write_pool = futures.ThreadPoolExecutor(max_workers=self.write_threads,
                                                         thread_name_prefix="quiz-write")
        super().init_process()  # runs the worker until it stops

    def enqueue_req(self, conn: TConn, first: bytes | None = None) -> None:
        """Hand ``conn``, whose request has arrived, to a thread: a write request (``first``, the request's
        first byte, peeked when not given) to the write pool, any other to gthread's pool."""
        if self.write_pool is not None:
            if first is None:
                first = _first_byte(conn.sock)
            if first in WRITE_METHOD_STARTS:
                conn.init()
                self._wrap_future(self.write_pool.submit(self.handle, conn), conn)
                return
        super().enqueue_req(conn)

    def notify(self) -> None:
        """gunicorn's heartbeat (a touch of the worker's temporary file, read by the master), at most once
        every :data:`HEARTBEAT_EVERY` seconds (module docstring)."""
        now = time.monotonic()
        if now - self.heartbeat_at >= HEARTBEAT_EVERY:
            self.heartbeat_at = now
            super().notify()

    def handle_quit(self, sig, frame) -> None:
        if self.write_pool is not None:
            self.write_pool.shutdown(wait=False)
        super().handle_quit(sig, frame)

    def run(self) -> None:
        super().run()
        if self.write_pool is not None:  # gthread's run() already waited for the requests in flight
            self.write_pool.shutdown(wait=False)
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

    def accept(self, server, listener) -> None:
        """gthread's accept, except that a connection whose request has already arrived (the usual case: a
        client sends it with the connection) goes to a thread at once instead of through one more round of
        the event loop, which under load waits for the interpreter like any other thread. A connection with
        nothing to read yet waits in the event loop as in gthread, so idle clients hold no thread."""
        try:
            sock, client = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        # b"": nothing yet (EAGAIN), or a reset the event loop's path reports as gthread does
        arrived = _first_byte(sock)
        if arrived:
            self.enqueue_req(ArrivedConn(self.cfg, sock, client, server), arrived)
            return
        conn = TConn(self.cfg, sock, client, server)
        with self._lock:
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_client_socket_readable, conn))

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
