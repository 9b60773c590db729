"""The text of the JSON columns (answers, verdicts, a learner's summary...): the engines' ``json_serializer``
and ``json_deserializer`` (:func:`quizapp.storage.db_engine.make_engine`).

A submit encodes several documents into its rows; orjson does it in C, several times faster than the standard
library. Anything orjson refuses (an integer past 64 bits...) or will not read (``NaN`` written by the standard
encoder into older rows) goes to the standard library, which also raises what it raised before.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps_text(obj: Any) -> str:
    """The JSON text of a stored document: orjson, or the standard encoder for what orjson refuses."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(obj)


def loads_text(text: str | bytes) -> Any:
    """A stored JSON document: orjson, or the standard decoder for what orjson will not read."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
