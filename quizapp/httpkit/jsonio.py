"""The app's JSON provider: request bodies that cannot be read are a client error, never a crash."""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider


class BoundedJSONProvider(DefaultJSONProvider):
    """``DefaultJSONProvider`` whose ``loads`` turns a body nested too deeply for the decoder into a
    ``ValueError``, which Flask reports as 400 (``request.get_json``) or ``None`` (``silent=True``)."""

    sort_keys = False   # keep the order the service builds responses in

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None
