"""``quizapp serve`` under gunicorn's signals, with the metrics folder the server makes itself (no
``PROMETHEUS_MULTIPROC_DIR`` given): SIGHUP replaces the workers and the service answers afterwards with its
metrics intact; SIGTERM stops it with status 0. Neither prints a traceback: a forked worker leaving used to
remove the master's metrics folder, so the master's ``child_exit`` hook failed on the missing files."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

import quiz_testing as testing


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path, threads: int, **env_extra):
    """``quizapp serve`` with two workers on a free port, the sample question loaded, metrics in a folder it
    makes itself; returns once it announced itself: ``(proc, base url, stdout lines, stderr lines)``, both
    read on in the background by ``proc.readers``. The caller stops ``proc``."""
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update({"DATABASE_URL": f"sqlite:///{tmp_path / 'served.sqlite3'}", "SECRET_KEY": "signals",
                "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false", **env_extra})
    cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--port", str(port), "--bank", str(bank),
           "--workers", "2", "--threads", str(threads)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list[str] = []
    err: list[str] = []
    proc.readers = [threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True)]
    proc.readers[0].start()
    for line in proc.stdout:
        out.append(line)
        if line.startswith("serving on http://"):
            break
    else:
        proc.wait(timeout=60)
        raise AssertionError("".join(out) + "".join(err))
    proc.readers.append(threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True))
    proc.readers[1].start()
    return proc, f"http://127.0.0.1:{port}", out, err


def _descendants(pid):
    """Every process below ``pid`` (workers, their grader pools)."""
    out, todo = set(), [pid]
    while todo:
        children = testing.child_pids(todo.pop())  # empty for a process gone meanwhile
        out |= children
        todo.extend(children)
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except FileNotFoundError:
        return False


def _wait_for_workers(master, avoid=frozenset()):
    """Two workers, none of them in ``avoid``: the master announces before it has forked them all, and after
    SIGHUP the old ones are gone once the master has reaped them. Bounded by polls, not by a clock."""
    now = set()
    for _ in range(600):
        now = testing.child_pids(master)
        if len(now) == 2 and not now & avoid:
            return now
        threading.Event().wait(0.1)
    raise AssertionError(f"workers {now}, expected two new ones (not {set(avoid)})")


@pytest.mark.slow
def test_sighup_then_sigterm_leave_no_traceback(tmp_path):
    proc, base, out, err = _serve(tmp_path, 2, TMPDIR=str(tmp_path))
    try:
        question = f"{base}/api/v1/questions/{testing.SAMPLE_QUESTION['id']}"
        assert _get(question)[0] == 200
        folders = [p for p in tmp_path.iterdir() if p.name.startswith("quizapp-metrics-")]
        assert len(folders) == 1  # the server's own folder, under TMPDIR

        before = _wait_for_workers(proc.pid)
        os.kill(proc.pid, signal.SIGHUP)
        _wait_for_workers(proc.pid, avoid=before)
        assert folders[0].is_dir()  # the exiting workers left the master's folder in place
        assert _get(question)[0] == 200
        # both old workers counted by the master: it counts one right after reaping it, so the count may
        # trail the process list by a moment (bounded by polls, not by a clock)
        text = ""
        for _ in range(300):
            status, body = _get(base + "/metrics")
            assert status == 200, "".join(err)[-4000:]
            text = body.decode()
            if "quizapp_worker_restarts_total 2.0" in text:
                break
            threading.Event().wait(0.1)
        assert "quizapp_worker_restarts_total 2.0" in text, text[-2000:]

        body = json.dumps({"expected": "x^2", "answer": "x*x", "variables": {"x": {}}}).encode()
        for _ in range(4):  # symbolic checks start the grader pool (children) of the workers they reach
            req = urllib.request.Request(base + "/api/v1/check/symbolic", data=body,
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=60) as r:
                assert r.status == 200
        below = _descendants(proc.pid)
        assert len(below) > 2  # the two workers and grader children
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        # workers leave without the interpreter's finalisation: still no grader child
        # outlives them (bounded by polls)
        for _ in range(100):
            left = [pid for pid in below if _alive(pid)]
            if not left:
                break
            threading.Event().wait(0.1)
        assert not left, left
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for reader in proc.readers:
        reader.join(timeout=10)
    stderr = "".join(err)
    assert "Traceback" not in stderr, stderr[-4000:]
    assert "[ERROR]" not in stderr, stderr[-4000:]  # a retiring worker exits by itself, not by a signal
    assert "Shutting down: Master" in stderr  # the graceful path ran to its end
    assert not folders[0].exists()  # the master removed its folder once the last worker was reaped


def _try_get(url):
    """``_get``, with a dropped or reset connection as a value instead of an exception."""
    try:
        return _get(url)[0]
    except OSError as err:
        return type(err).__name__


@pytest.mark.slow
def test_rolling_restarts_drop_no_request(tmp_path):
    """Clients keep asking while the workers are replaced three times: every request is answered 200. (A
    plain gthread worker closed the connections it had accepted but not yet read: resets under HUP.)"""
    proc, base, out, err = _serve(tmp_path, 4, QUIZ_LOG_JSON="0")
    try:
        url = f"{base}/api/v1/questions/{testing.SAMPLE_QUESTION['id']}"
        assert _try_get(url) == 200
        done = threading.Event()
        answers: list = []

        def client():
            while not done.is_set() and len(answers) < 20_000:  # bounded: ends with the restarts or here
                answers.append(_try_get(url))

        clients = [threading.Thread(target=client) for _ in range(4)]
        for c in clients:
            c.start()
        try:
            for _ in range(3):
                before = _wait_for_workers(proc.pid)
                os.kill(proc.pid, signal.SIGHUP)
                _wait_for_workers(proc.pid, avoid=before)
        finally:
            done.set()
            for c in clients:
                c.join(timeout=120)
        failed = [a for a in answers if a != 200]
        assert len(answers) > 50 and not failed, (len(answers), failed[:10], "".join(out + err)[-3000:])
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_counting_a_worker_exit_never_runs_inside_another(monkeypatch):
    """gunicorn counts exits from its SIGCHLD handler; a second exit signalled while the first is being
    counted must wait until that is done, not re-enter it (the counting takes non-reentrant locks: the master
    waited for itself for ever and ignored every later signal)."""
    from types import SimpleNamespace

    from quizapp import serving

    held = threading.Lock()
    counted, nested = [], []

    def count(pid, restart=True):
        if not held.acquire(blocking=False):  # re-entered while the first count holds the lock
            nested.append(pid)
            return
        try:
            counted.append(pid)
            if pid == 1:
                os.kill(os.getpid(), signal.SIGCHLD)  # another worker exits meanwhile
                for _ in range(10_000):  # bytecodes at which Python runs a pending signal handler
                    pass
        finally:
            held.release()

    monkeypatch.setattr(serving, "worker_exited", count)
    previous = signal.signal(signal.SIGCHLD, lambda *_: serving.child_exit(None, SimpleNamespace(pid=2)))
    try:
        serving.child_exit(None, SimpleNamespace(pid=1))
        for _ in range(10_000):  # the deferred signal is handled once unblocked
            if counted == [1, 2]:
                break
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert nested == [] and counted == [1, 2]
