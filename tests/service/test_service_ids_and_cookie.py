"""A submit's ids and its new learner's cookie, made without calls that give up the interpreter lock:
ids from the OS's random source read in blocks (quizapp.storage.ids), the cookie signed without itsdangerous'
zlib attempt (quizapp.learner_cookie.LearnerSerializer) -- and both exactly what they were."""

import os
import uuid

import pytest
from itsdangerous import BadSignature, URLSafeSerializer

import quiz_testing as testing
from quizapp import learner_cookie
from quizapp.storage import ids


def test_ids_are_distinct_version_7_uuids_read_in_blocks(monkeypatch):
    reads: list[int] = []
    real = os.urandom

    def counted(n: int) -> bytes:
        reads.append(n)
        return real(n)

    monkeypatch.setattr(ids.os, "urandom", counted)
    fresh = ids._Random()
    monkeypatch.setattr(ids, "_random", fresh)
    made = [ids.random_hex_id() for _ in range(3 * (ids.BLOCK // 10))]
    assert len(set(made)) == len(made)
    assert all(len(i) == 32 and uuid.UUID(hex=i).version == 7 and uuid.UUID(hex=i).variant == uuid.RFC_4122
               and uuid.UUID(hex=i).hex == i for i in made)
    assert reads == [ids.BLOCK] * 3  # one read per 409 ids, not one per id


def test_ids_made_later_sort_later(monkeypatch):
    """The first 48 bits are the time in milliseconds: ids of one moment share their index pages."""
    now = [1_790_000_000_000_000_000]
    # the ids module's clock only (not time.time_ns for every thread of this process)
    monkeypatch.setattr(ids, "time", type("Clock", (), {"time_ns": staticmethod(lambda: now[0])}))
    first = [ids.random_hex_id() for _ in range(50)]
    now[0] += 1_000_000  # one millisecond later
    later = [ids.random_hex_id() for _ in range(50)]
    assert max(first) < min(later)
    assert {i[:12] for i in first} == {f"{1_790_000_000_000:012x}"}


def test_a_forked_process_never_hands_out_its_parents_bytes():
    ids.random_hex_id()  # the parent has a block under way
    child_id = testing.from_forked_child(ids.random_hex_id)  # the child's next id
    parent_next = ids.random_hex_id()
    assert child_id != parent_next  # the child read its own block: the parent's next id is not repeated
    assert uuid.UUID(hex=child_id).version == 7


@pytest.mark.parametrize("key", ["k" * 64, b"another secret"])
def test_the_learner_cookie_is_byte_for_byte_itsdangerous(monkeypatch, key):
    ours = learner_cookie.LearnerSerializer(key, salt=learner_cookie.SALT)
    theirs = URLSafeSerializer(key, salt=learner_cookie.SALT)
    values = [ids.random_hex_id() for _ in range(200)]
    expected = [theirs.dumps(v) for v in values]

    def no_zlib(_data):
        raise AssertionError("zlib called while signing a learner id")

    monkeypatch.setattr("itsdangerous.url_safe.zlib.compress", no_zlib)
    assert [ours.dumps(v) for v in values] == expected
    assert [theirs.loads(c) for c in expected] == values and [ours.loads(c) for c in expected] == values
    with pytest.raises(BadSignature):
        ours.loads(expected[0][:-2] + "xx")
