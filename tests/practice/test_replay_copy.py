"""The walk a submit extends (quizapp.study.policy.Replay.copy): walking on the copy leaves the stored walk as it
was, and gives what walking on a deep copy gives."""

import copy
from datetime import datetime, timezone

from quizapp.study import policy

DATA = {"id": "q", "parts": [{"id": "a", "kind": "numeric"}], "tries": 2}
AT = datetime(2026, 11, 27, tzinfo=timezone.utc)


def _attempt(variant: int, status: str) -> tuple:
    return (AT, policy.ATTEMPT, variant, {"a": {"status": status}}, True, 0.0, 1.0)


def test_walking_on_a_copy_leaves_the_walk_and_matches_a_deep_copy():
    walked = policy.walk([(AT, policy.HINT, 1, "a", False), _attempt(1, "incorrect"), _attempt(1, "incorrect"),
                          (AT, policy.HINT, 1, "a", False), _attempt(2, "incorrect")], DATA)
    assert walked.revealed and walked.revealed_hints and walked.running == 1  # every field holds something
    before = copy.deepcopy(walked)
    more = [_attempt(1, "correct"), (AT, policy.HINT, 1, "a", False), (AT, policy.HINT, 2, "a", False),
            (AT, policy.REQUEST, 2, None, False), _attempt(3, "incorrect")]
    ours = policy.walk(more, DATA, walked.copy())
    theirs = policy.walk(more, DATA, copy.deepcopy(walked))
    assert ours == theirs
    assert walked == before  # the stored walk did not move
    assert ours != before
