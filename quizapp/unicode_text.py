"""Whether text can leave the process: a Python ``str`` may hold an unpaired surrogate (JSON carries one as
``\\ud800``) that UTF-8 cannot encode, so no database, log line or HTML page could take it.

One home for the check that the JSON body guard (:mod:`quizapp.httpkit.jsonapi`) and the page renderer's
endpoint (:mod:`quizapp.web.views`) both make before they touch the text.
"""

from __future__ import annotations


def encodable(text: str) -> bool:
    """True when ``text`` encodes as UTF-8 (no unpaired surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["encodable"]
