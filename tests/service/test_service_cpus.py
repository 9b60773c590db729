"""Which CPU each worker of ``quizapp serve`` is held to: pinned only with as many workers as CPUs (or when
asked), each new worker on the CPU fewest live workers hold (a replacement takes the CPU its predecessor
left; the workers of a rolling restart spread as the old ones did)."""

import itertools
from types import SimpleNamespace

import pytest

from quizapp.serving import cpus as serving_cpus


@pytest.mark.parametrize("cpus, workers, wanted, expected", [
    ([0, 1], 2, None, [0, 1]),       # the default: one worker per CPU
    ([0, 1], 1, None, []),           # fewer workers than CPUs: left to the scheduler
    ([0, 1], 3, None, []),           # more workers than CPUs: left to the scheduler
    ([0, 1], 3, True, [0, 1]),       # asked: spread over the CPUs anyway
    ([0, 1], 2, False, []),          # --no-pin-workers
    ([4], 1, True, []),              # one CPU: nothing to choose
    ([], 2, None, []),               # a platform that cannot pin
])
def test_cpus_to_pin(monkeypatch, cpus, workers, wanted, expected):
    monkeypatch.setattr(serving_cpus, "allowed_cpus", lambda: cpus)
    assert serving_cpus.cpus_to_pin(workers, wanted) == expected


_pids = itertools.count(100)


def _spawn(server, cpus):
    worker = SimpleNamespace()
    serving_cpus.assign(server, worker, cpus)
    server.WORKERS[next(_pids)] = worker  # as gunicorn's master records a forked worker
    return worker


def test_each_new_worker_takes_the_least_held_cpu():
    cpus = [2, 5]  # CPUs need not start at 0 (a cpuset)
    server = SimpleNamespace(WORKERS={})
    first, second = _spawn(server, cpus), _spawn(server, cpus)
    assert (first.cpu, second.cpu) == (2, 5)
    # kill -9 of the worker on CPU 5: its replacement takes CPU 5, not the held CPU 2
    del server.WORKERS[next(pid for pid, w in server.WORKERS.items() if w is second)]
    assert _spawn(server, cpus).cpu == 5
    # SIGHUP: the new workers start while the old ones still run, and spread as they did
    new = [_spawn(server, cpus) for _ in range(2)]
    assert sorted(w.cpu for w in new) == [2, 5]
    assert serving_cpus.choose_cpu([2, 2, 5], cpus) == 5
    assert serving_cpus.choose_cpu([7], cpus) == 2  # a CPU not among them counts for none


def test_a_worker_that_cannot_be_held_runs_free(monkeypatch, caplog):
    """A CPU taken offline after the master listed them: the worker warns and serves on any CPU (raising in
    gunicorn's post_fork would make the master start it again and again)."""
    def refuse(_pid, _cpus):
        raise OSError(22, "Invalid argument")

    recorded = []
    monkeypatch.setattr(serving_cpus.os, "sched_setaffinity", refuse)
    monkeypatch.setattr(serving_cpus.child_cpus, "set_for_children", recorded.append)
    serving_cpus.hold(SimpleNamespace(cpu=7), [0, 7])
    assert recorded == []  # nothing pinned, so nothing to give children back
    assert "holding it to CPU 7 failed" in caplog.text
