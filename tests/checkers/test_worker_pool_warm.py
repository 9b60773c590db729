"""A grader process freezes what its preloads made before it takes a task: the collector's full passes do not
walk sympy inside a learner's check (checkers/worker_pool.py)."""

import gc

from checkers.worker_pool import DEFAULT_PRELOAD, WorkerPool


def test_a_grader_process_starts_with_its_preloads_frozen():
    pool = WorkerPool(1)
    try:
        frozen = pool.run(gc.get_freeze_count, timeout=60)
    finally:
        pool.shutdown()
    assert "checkers.mathparse" in DEFAULT_PRELOAD  # its warm_up runs before the first task
    assert frozen > 30_000  # sympy and the checkers (about 57,000); a bare pool process freezes about 14,000

