"""Addresses built once per process: a page builds twenty or more (the header's links, the static files, its
tags), and werkzeug's builder finds the rule and encodes the arguments each time, although a relative
address depends only on the endpoint, its arguments and where the app is mounted (``SCRIPT_NAME``).

Only what is certain to be the same is kept: a relative address (no ``_external``, ``_scheme``, ``_anchor``
or ``_method``), built in a request, with arguments of plain types, while the app has no URL-default
functions (they could add arguments from the request). At most ``URL_MEMO_SIZE`` addresses are kept; the
arguments can come from the request (the colour switch's ``next``), so the memo starts over when full.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask
from flask.globals import _cv_request

from .config import URL_MEMO_SIZE

_PLAIN = (str, int, type(None))


class MemoizedUrlFlask(Flask):
    """Flask, with :meth:`url_for` remembering the relative addresses it built (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._url_memo: dict[tuple, str] = {}
        self._url_memo_lock = threading.Lock()

    def url_for(self, /, endpoint: str, *, _anchor: str | None = None, _method: str | None = None,
                _scheme: str | None = None, _external: bool | None = None, **values: Any) -> str:
        req_ctx = _cv_request.get(None)
        if (req_ctx is None or _anchor is not None or _method is not None or _scheme is not None or _external
                or any(self.url_default_functions.values())
                or not all(type(v) in _PLAIN for v in values.values())):
            return super().url_for(endpoint, _anchor=_anchor, _method=_method, _scheme=_scheme,
                                   _external=_external, **values)
        request = req_ctx.request
        key = (request.script_root, request.blueprint if endpoint[:1] == "." else None, endpoint,
               tuple(sorted(values.items())))
        url = self._url_memo.get(key)
        if url is None:
            url = super().url_for(endpoint, **values)
            with self._url_memo_lock:
                if len(self._url_memo) >= URL_MEMO_SIZE:
                    self._url_memo.clear()
                self._url_memo[key] = url
        return url
