"""Where the account pages send the learner back to: the page they left to sign in, sign up or sign out.

The header's "Sign in" and "Account" links carry the page as shown (:func:`quizapp.i18n.page_path`: its path and
query, ``?lang=`` and a drawn ``variant=`` included) as ``next=``; the sign-in, sign-up and account pages pass it
on to each other and to their forms, and after the form the browser goes there. Every ``next=`` is read through
:func:`quizapp.safe_redirect.safe_next` (a path of this site as the browser reads it, else the default), so the
parameter is no open redirect. A target that is itself an account form (sign in, sign up, sign out) is refused
too, so that signing in never ends on the sign-in page again; after signing out, a page of the account (which
needs the sign-in just closed) is refused as well. The header also learns here whether the learner is signed in.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from flask import request, url_for

from ..auth.identity import via
from ..i18n import page_args, page_path
from ..safe_redirect import safe_next

FIELD = "next"

#: Endpoints that take a ``next=`` of their own and pass it on instead of naming themselves.
_ACCOUNT_ENDPOINTS = frozenset({"accounts.login", "accounts.signup", "accounts.index"})


def _form_paths() -> tuple[str, ...]:
    return url_for("accounts.login"), url_for("accounts.signup"), url_for("accounts.logout")


def _refused(target: str, *, signed_out: bool) -> bool:
    path = urlsplit(target).path.rstrip("/") or "/"
    if path in _form_paths():
        return True
    account = url_for("accounts.index")
    return signed_out and (path == account or path.startswith(account + "/"))


def requested(*, signed_out: bool = False) -> str | None:
    """The request's ``next`` (form field, else query), if it is a page to go back to; else ``None``."""
    target = safe_next(request.form.get(FIELD) or request.args.get(FIELD), "")
    if not target or _refused(target, signed_out=signed_out):
        return None
    return target


def after(default: str, *, signed_out: bool = False) -> str:
    """Where the browser goes after the account form: the request's ``next`` when it may, else ``default``."""
    return requested(signed_out=signed_out) or default


def _shown_page() -> str:
    """The current page as a link back to it: :func:`page_path`, with the request's ``?lang=`` kept where the
    page named its own arguments (a question at a variant drawn for this visit names only ``variant=``)."""
    path = page_path()
    lang = request.args.get("lang")
    if lang and "lang" not in page_args():
        path += ("&" if "?" in path else "?") + "lang=" + quote(lang, safe="")
    return path


def here() -> str | None:
    """The page the header's account links should come back to from the current page: the page itself on a
    GET of any other page; on the account pages, the ``next`` they were opened with (passed on); ``None``
    after a POST (its path need not answer a GET)."""
    if request.endpoint in _ACCOUNT_ENDPOINTS:
        return requested()
    if request.method not in ("GET", "HEAD"):
        return None
    target = safe_next(_shown_page(), "")
    return target if target and not _refused(target, signed_out=False) else None


def link(endpoint: str) -> str:
    """``endpoint``'s URL with ``next=`` naming the page to come back to, when there is one. The query is
    added here, not by ``url_for``: the app's URL memo (:mod:`quizapp.url_memo`) would keep one address per
    page and variant shown."""
    target = here()
    base = url_for(endpoint)
    return f"{base}?{FIELD}={quote(target, safe='/')}" if target else base


def template_helpers() -> dict[str, Any]:
    """For the header (``learner/_nav.html``, on every learner page, the question pages included):
    ``account_link(endpoint)``, ``return_to()`` (the ``next`` the account forms pass on) and ``signed_in``
    (whether to offer "Account" instead of "Sign in"; the request's identity is already known, a ``g`` look-up)."""
    return {"account_link": link, "return_to": here, "signed_in": via() == "session"}
