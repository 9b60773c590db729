"""JSON in and out: the app's JSON provider (request bodies that cannot be read are a client error, never a
crash; answers encoded by orjson) and :func:`json_safe`, the plain JSON values of what the service stores,
answers or queues (verdicts, views, answers, engine results; plain Python), which the services, the grading
backends and the blueprints import from here, below each of them. The JSON columns' own encoder is
:mod:`quizapp.storage.json_columns`."""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import fields, is_dataclass
from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

#: orjson's options for every document the service writes: keys that are not strings become strings (as
#: the standard library's encoder makes them), and dates go to the provider's ``default`` (Flask's HTTP date
#: format, not orjson's ISO one), so only the speed changes.
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


class BoundedJSONProvider(DefaultJSONProvider):
    """``DefaultJSONProvider`` encoding with orjson, and whose ``loads`` turns a body nested too deeply for
    the decoder into a ``ValueError``, which Flask reports as 400 (``request.get_json``) or ``None``
    (``silent=True``).

    Encoding a submit's answer with the standard library took about 5% of a worker's interpreter under load
    (``docs/deploy.md``); orjson does the same work in C, several times faster. Its output is the same JSON
    value, compact and UTF-8 (the standard encoder escapes non-ASCII as ``\\uXXXX``): what a client decodes
    is unchanged. A document orjson refuses (an integer past 64 bits, a key type it cannot turn into a
    string) and every call with options (``indent``...) go to the standard encoder, as before; so does a
    body orjson will not decode (``NaN`` literals, integers past 64 bits), so what is accepted is unchanged."""

    sort_keys = False   # keep the order the service builds responses in

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:
            try:
                return orjson.dumps(obj, default=self.default, option=_ORJSON_OPTIONS).decode()
            except (orjson.JSONEncodeError, TypeError):
                pass  # the standard encoder's answer (or its error), as before
        return super().dumps(obj, **kwargs)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if not kwargs:
            try:
                return orjson.loads(s)
            except (orjson.JSONDecodeError, TypeError):
                pass  # read again by the standard decoder: it accepts what it accepted before, or says why not
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None

    def response(self, *args: Any, **kwargs: Any) -> Any:
        """Flask's JSON response, encoded straight to bytes (no detour through ``str``) unless the app
        pretty-prints (debug mode) or the document needs the standard encoder."""
        if not (self.compact is False or (self.compact is None and self._app.debug)):
            obj = self._prepare_response_obj(args, kwargs)
            try:
                body = orjson.dumps(obj, default=self.default, option=_ORJSON_OPTIONS | orjson.OPT_APPEND_NEWLINE)
            except (orjson.JSONEncodeError, TypeError):
                return super().response(*args, **kwargs)
            return self._app.response_class(body, mimetype=self.mimetype)
        return super().response(*args, **kwargs)


def shallow_fields(obj: Any) -> dict[str, Any]:
    """A dataclass instance's fields, one level deep: the callers convert the values themselves, recursively
    (``dataclasses.asdict`` would deep-copy every value first, and a verdict is converted on every submit)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


_PLAIN = (str, int, bool, type(None))


def json_safe(obj: Any) -> Any:
    """Dataclasses -> dicts, tuples -> lists, non-finite floats -> "nan"/"inf"/"-inf", others -> str."""
    # Exact built-in types first: a verdict is dozens of nested plain values, and each submit converts it.
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): json_safe(v) for k, v in obj.items()}
    if kind is list:
        return [json_safe(v) for v in obj]
    if kind is float and math.isfinite(obj):
        return obj
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = shallow_fields(obj)
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    try:  # numpy / torch scalars
        if isinstance(obj, numbers.Integral):
            return int(obj)
        if isinstance(obj, numbers.Real):
            return json_safe(float(obj))
    except Exception:  # noqa: BLE001
        pass
    if hasattr(obj, "tolist"):
        return json_safe(obj.tolist())
    return str(obj)
