"""A bounded least-recently-used memo that is safe in threads and across ``fork``.

The service memoises pure work (decided equivalences, reference-engine outputs, rendered question pages)
in processes that serve requests from several threads and may be forked into workers at any moment.
:func:`functools.lru_cache` does the bookkeeping: its C implementation holds no Python-level lock, so a
child forked while another thread is inside the memo finds nothing left locked, and it bounds the entries.

Two needs go beyond a plain ``lru_cache``: keys are computed by the caller (arguments such as mappings
are not hashable, and several arguments may not matter), and some results must not be kept (a comparison
that ran out of time).  :class:`Memo` wraps each call in a :class:`_Call` that hashes and compares by its
key only, and a computation that raises :class:`Uncacheable` hands its value back without storing it.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Hashable


class Uncacheable(Exception):
    """Raised by a computation whose result is returned to the caller but not remembered."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class _Call:
    """One memo lookup: hashed and compared by ``key``; ``compute`` runs on a miss and is then dropped,
    so the memo keeps the key and the result only."""

    __slots__ = ("key", "compute")

    def __init__(self, key: Hashable, compute: Callable[[], Any] | None) -> None:
        self.key = key
        self.compute = compute

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Call) and other.key == self.key


class Memo:
    """At most ``maxsize`` results by key, least recently used evicted first (``functools.lru_cache``)."""

    def __init__(self, maxsize: int) -> None:
        @functools.lru_cache(maxsize=maxsize)
        def lookup(call: _Call) -> Any:
            compute, call.compute = call.compute, None
            return compute()

        self._lookup = lookup

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The remembered result for ``key``, else ``compute()`` (remembered unless it raised Uncacheable).
        An ordinary exception from ``compute`` propagates and nothing is remembered."""
        try:
            return self._lookup(_Call(key, compute))
        except Uncacheable as kept_out:
            return kept_out.value

    def clear(self) -> None:
        self._lookup.cache_clear()

    def __len__(self) -> int:
        return self._lookup.cache_info().currsize


__all__ = ["Memo", "Uncacheable"]
