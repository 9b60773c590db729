"""Warm workers without a slow launch: the gunicorn master of ``quizapp serve`` forks its first workers at once,
imports the reference engine in a thread of its own meanwhile, and from then on forks only from a warm
master (:class:`WarmingArbiter`, used by :func:`quizapp.serving.serve_gunicorn` when the app is preloaded).

Why not before the first fork: importing torch takes 1.3-2 s of a core. Done before forking, every start
waited for it (launch to the first 200 about 3 s); left to the workers, a worker's first submit that needs
the engine (a question whose values come from it, the code kind, the engine API, a figure) imported it
then: 1.3-1.8 s for that learner, after every start and after every worker replacement.

So, in the master:

1. The first workers are forked as soon as the app is built: they serve pages, lists and the answer kinds
   that need no engine at once, and import torch themselves only if a request needs it before step 3.
2. Right after, a thread at a lower priority imports the engine (:data:`ENGINE_MODULES`), pays the maths
   parser's and each answer kind's first-use costs (``checkers.mathparse.warm_up``,
   :meth:`checkers.kinds.base.Kind.warm`), collects the master's garbage and freezes the rest (``gc.freeze``),
   as ``quizapp.serving.tune_collector`` did before the first fork.
3. When it is done, each of the first ("cold") workers is replaced by one forked from the warm master, and
   the cold one is retired gracefully (SIGTERM: :mod:`quizapp.serving.worker` serves every request it had
   accepted, then leaves), exactly as a rolling restart does. Its exit is not counted as a restart.

Every fork after the first ones waits for the thread to finish: the master's loop spawns nothing while it
runs (a worker killed in the first seconds is replaced once it is done; the loop meanwhile still handles
signals), and gunicorn's ``pre_fork`` waits for it (:meth:`MasterWarmer.wait`: the new workers of an early
``SIGHUP``). Forking while the thread is inside an import would copy into the child a module lock held by
a thread the child does not have, and the child would hang at its own first import of that module (or see
it half made); waiting is also what makes every later worker warm. The thread runs no tensor operation, so
torch has started no intra-op thread pool in the master when it forks. It runs a few nice steps below the
master (:data:`WARM_NICENESS`), not more: on a saturated machine it would then get a small share of a core
and hold back replacements. A failed warm-up is logged and changes nothing else: the workers then import
the engine on first use, as before.

A warm worker also starts its grader pool (:mod:`checkers.sandbox`) a little after it boots
(``quizapp.serving.GRADER_POOL_DELAY``) instead of at its first symbolic or derivation check, which
otherwise waited for a fork server to import sympy (1-4 s); not at once, so that those imports do not take
the CPU from the worker's first answers.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import threading
from typing import Any, Callable

from gunicorn.arbiter import Arbiter

log = logging.getLogger(__name__)

#: How much nicer the warm-up thread is than the master (Linux nice values, per thread; 19 is the lowest
#: priority).
WARM_NICENESS = 5

#: Imported by the master before it forks a later worker: the reference engine and the modules that
#: import it on first use in a request (the code kind's case builder and roles).
ENGINE_MODULES = ("torch", "checkers.reference", "checkers.kinds.code.cases", "checkers.kinds.code.roles")


def warm_process() -> None:
    """Import :data:`ENGINE_MODULES`, pay the parser's and the answer kinds' first-use costs, then collect the
    master's garbage and freeze the rest (``gc.freeze``: full collections in the workers do not walk it)."""
    for name in ENGINE_MODULES:
        importlib.import_module(name)
    from checkers import mathparse  # local: imported already by the app; named here for its warm-up
    from checkers.kinds import get_kind, kind_names  # local: the same

    mathparse.warm_up()
    for name in kind_names():
        get_kind(name).warm()
    # The start-up heap was frozen without a collection (quizapp.serving.tune_collector): collect it now,
    # with what this made, and freeze the rest again.
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class MasterWarmer:
    """Runs ``warm`` (default :func:`warm_process`) once in a thread of the master; ``on_done`` is called
    from that thread when it ends, whether it succeeded (``ok``) or not."""

    def __init__(self, on_done: Callable[[], None] = lambda: None,
                 warm: Callable[[], None] = warm_process) -> None:
        self._on_done = on_done
        self._warm = warm
        self._thread: threading.Thread | None = None
        self.done = False
        self.ok = False

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="quiz-warm-engine", daemon=True)
            self._thread.start()

    def wait(self) -> None:
        """Block until the warm-up has ended (at once when it was never started)."""
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            # Linux gives each thread its own nice value: the import takes the cores the first workers
            # leave idle rather than theirs while they answer their first requests. The main thread, which
            # forks, keeps its own (a worker does not inherit this one).
            me = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + WARM_NICENESS))
        except (AttributeError, OSError):  # a platform without per-thread priorities: the import runs as is
            pass
        try:
            self._warm()
            self.ok = True
        except Exception:  # noqa: BLE001 - the workers then import the engine on first use, as before
            log.exception("warming the engine in the master failed; workers import it on first use")
        finally:
            self.done = True
            try:
                self._on_done()
            except OSError:  # the master is stopping (its wake-up pipe closed): nothing to wake
                pass


class WarmingArbiter(Arbiter):
    """gunicorn's master, which starts the warm-up once its first workers are forked and then replaces
    them with workers forked from the warm master (module docstring). The ``pre_fork`` hook must call
    :meth:`before_fork`. A worker object carries ``quiz_warm`` (forked from the warm master) and, once a
    warm one replaces it, ``quiz_retired_cold`` (its exit is no restart: ``quizapp.serving.child_exit``)."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.warmer = MasterWarmer(on_done=self.wakeup)

    def before_fork(self, worker: Any) -> None:
        """Wait for a warm-up in progress, and mark ``worker`` warm or cold (forked before it ended)."""
        self.warmer.wait()
        worker.quiz_warm = self.warmer.ok

    def manage_workers(self) -> None:
        if self.warmer.started and not self.warmer.done:
            return  # a fork would wait for the warm-up: the loop keeps handling signals, and is woken after it
        if self.warmer.ok:
            # The youngest ``num_workers`` are those gunicorn keeps; older ones (a rolling restart's) are
            # being retired already and are left to it.
            kept = sorted(self.WORKERS.values(), key=lambda w: w.age)[-self.num_workers:]
            cold = [w for w in kept if not getattr(w, "quiz_warm", True)
                    and not getattr(w, "quiz_retired_cold", False)]
            for w in cold:
                w.quiz_retired_cold = True
            for _ in cold:
                self.spawn_worker()  # the new worker is younger: gunicorn retires the oldest extra ones
        super().manage_workers()  # spawns what is missing; SIGTERM to the oldest beyond the number wanted
        if not self.warmer.started and self.WORKERS:
            self.warmer.start()
