"""Request parsing for the API: JSON bodies and typed fields, each error naming its field (messages are
gettext msgids, shown in the request's language)."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from .json_writes import is_json_request
from ..errors import BadRequest, PayloadTooLarge, UnsupportedMediaType, ValidationError
from ..i18n import LANGS, N_, Message, note_body_lang
from ..services.answers import type_name
from ..unicode_text import encodable

_MISSING = object()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (send the string \"nan\", \"inf\" or \"-inf\")")


def json_body() -> dict[str, Any]:
    """The request's JSON object: 415 unless the body is JSON, 413 if too large, 400 if malformed."""
    if not is_json_request():
        raise UnsupportedMediaType(Message(N_("send the body as JSON with Content-Type: application/json")),
                                   "Content-Type")
    try:
        raw = request.get_data(cache=True)
    except RequestEntityTooLarge:
        raise PayloadTooLarge(_too_large()) from None
    if request.max_content_length is not None and len(raw) > request.max_content_length:
        raise PayloadTooLarge(_too_large())
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise BadRequest(Message(N_("the body is not UTF-8")), None, code="malformed_json") from None
    except RecursionError:
        raise BadRequest(Message(N_("the JSON body is nested too deeply")), None, code="malformed_json") from None
    except ValueError as exc:
        raise BadRequest(Message(N_("malformed JSON: %(detail)s"), detail=str(exc)), None,
                         code="malformed_json") from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_unpaired_surrogates(data)
    if not isinstance(data, dict):
        raise BadRequest(Message(N_("the JSON body must be an object, got %(got)s"), got=type_name(data)), None,
                         code="malformed_json")
    note_body_lang(data.get("lang"))  # later errors of this request speak the body's language
    return data


#: ``\ud800``..``\udfff`` in the body's text: the only way JSON can carry a surrogate (UTF-8 cannot encode one).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _refuse_unpaired_surrogates(data: Any) -> None:
    """422 naming the first string (key or value) holding a surrogate that is not half of a pair: such text
    cannot be encoded as UTF-8, so no database, log or HTML page could take it. Iterative: the decoder
    allows nesting deeper than a recursive walk could go."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                where = f"{path}.{key}" if path else str(key)
                if not encodable(key):
                    raise ValidationError(Message(N_("%(field)s is not valid Unicode (unpaired surrogate)"),
                                                  field=repr(key)), path or None)
                stack.append((item, where))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, str) and not encodable(value):
            raise ValidationError(Message(N_("%(field)s is not valid Unicode (unpaired surrogate)"),
                                          field=path or "body"), path or None)


def _too_large() -> Message:
    return Message(N_("request body larger than %(n)s bytes"), n=request.max_content_length)


def field(body: dict, name: str, kind: type | tuple[type, ...], *, required: bool = True,
          default: Any = None, path: str | None = None) -> Any:
    value = body.get(name, _MISSING)
    path = path or name
    if value is _MISSING or value is None:
        if required:
            raise ValidationError(Message(N_("%(field)s is required"), field=path), path, code="missing_field")
        return default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if int in kinds and float not in kinds and isinstance(value, float) and value.is_integer():
        # JSON Schema's integer admits a number with a zero fraction (10.0), and a client that serialises
        # numbers as floats sends it so: the same integer. 10.5 stays a wrong type.
        value = int(value)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        raise ValidationError(Message(N_("%(field)s must be %(expected)s, got %(got)s"), field=path,
                                      expected=_kinds_text(kinds), got=type_name(value)), path)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_JSON_INT:
        # Integers travel to the database (64-bit columns) and to JavaScript (exact up to 2^53).
        raise ValidationError(Message(N_("%(field)s is out of range (|n| <= 2^53)"), field=path), path)
    return value


MAX_JSON_INT = 2 ** 53

_KIND_NAMES = {str: N_("a string"), int: N_("an integer"), float: N_("a number"), dict: N_("an object"),
               list: N_("a list"), bool: N_("a boolean")}


def _kinds_text(kinds: tuple[type, ...]) -> Message | str:
    """``a string or a number``, each name translated when shown."""
    names: list[Message | str] = [Message(_KIND_NAMES[k]) if k in _KIND_NAMES else k.__name__ for k in kinds]
    out = names[0]
    for name in names[1:]:
        out = Message(N_("%(first)s or %(second)s"), first=out, second=name)
    return out


def check_unknown(body: dict, allowed: set[str]) -> None:
    for key in body:
        if key not in allowed:
            raise ValidationError(Message(N_("unknown field %(field)s (allowed: %(allowed)s)"), field=repr(key),
                                          allowed=", ".join(sorted(allowed))), key, code="unknown_field")


def _documented_lang(value: Any, field: str) -> str:
    """``value`` when it is one of the codes the OpenAPI document lists (``en``, ``zh``); otherwise a 422
    naming ``field``. The pages read language tags such as ``zh-CN`` from browsers; the API promises its
    exact codes, and a request the document forbids (``""``, ``"EN"``) is refused, not guessed at."""
    if not isinstance(value, str) or value not in LANGS:
        raise ValidationError(Message(N_("%(field)s must be one of %(langs)s"), field=field,
                                      langs=", ".join(repr(code) for code in LANGS)), field)
    return value


def request_lang(body: dict | None = None) -> str:
    """The body's ``lang``, else the query's, else English; a value outside the documented codes in either
    is a 422 naming it (the query's is checked even when the body's wins, so a request the document forbids
    is never answered)."""
    query = request.args.get("lang")
    # an empty query value is no value (the document's allowEmptyValue: an HTML form's unset field)
    query = LANGS[0] if query in (None, "") else _documented_lang(query, "lang")
    if body is not None and "lang" in body:
        return _documented_lang(body["lang"], "lang")
    return query


#: ``10.0`` or ``10.``: an integer written as a decimal (bounded, so no long digit string is read).
_INTEGRAL_DECIMAL = re.compile(r"[+-]?[0-9]{1,20}\.0{0,20}")


def query_int(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw, 10)
    except ValueError:
        pass
    if _INTEGRAL_DECIMAL.fullmatch(raw):
        # The document's integer type admits 10.0 (JSON Schema counts integral numbers as integers), and a
        # client that serialises a float sends it so: the same integer.
        return int(raw.split(".")[0], 10)
    raise ValidationError(Message(N_("%(field)s must be an integer, got %(got)s"), field=name, got=repr(raw)),
                          name)


def limit_small_bodies(large_endpoints: set[str] | frozenset[str]) -> None:
    """Before a request: every endpoint outside ``large_endpoints`` takes at most ``SMALL_BODY_LIMIT``
    bytes (when that is below the app's ``MAX_CONTENT_LENGTH``)."""
    if request.endpoint not in large_endpoints:
        limit = current_app.config.get("SMALL_BODY_LIMIT")
        app_limit = current_app.config.get("MAX_CONTENT_LENGTH")
        if limit and (app_limit is None or limit < app_limit):
            request.max_content_length = limit


def ok(body: Any, status: int = 200):
    resp = jsonify(body)
    resp.status_code = status
    return resp
