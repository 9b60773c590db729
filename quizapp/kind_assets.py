"""The answer kinds' own page files: each kind's widget (a Jinja partial) and browser script, served
from the kind's folder (``checkers/kinds/<name>/``, or wherever a registered kind lives).

* templates named ``kinds/<name>/<file>.html`` are read from that kind's folder (the question page
  includes ``kinds/<name>/partial.html`` per part);
* ``GET /assets/kinds/<name>/<file>`` serves a file the kind lists in its ``assets`` (nothing else: the strict
  CSP's ``script-src 'self'`` still holds, and only pages that use the kind load it).
"""

from __future__ import annotations

from typing import Any, Iterable

from flask import Blueprint, Flask, abort, send_file, url_for
from jinja2 import BaseLoader, TemplateNotFound
from checkers.kinds import all_kinds, get_kind
from checkers.verdict import SpecError

PREFIX = "kinds/"

bp = Blueprint("kinds", __name__, url_prefix="/assets/kinds")  # beside the static files


def _kind(name: Any):
    try:
        return get_kind(name)
    except SpecError:
        return None


class KindTemplateLoader(BaseLoader):
    """``kinds/<name>/<file>.html`` -> the file in kind ``<name>``'s folder (one level, .html only)."""

    def get_source(self, environment, template: str):
        if not template.startswith(PREFIX):
            raise TemplateNotFound(template)
        name, _, filename = template[len(PREFIX):].partition("/")
        kind = _kind(name)
        if kind is None or not filename.endswith(".html") or "/" in filename or filename.startswith("."):
            raise TemplateNotFound(template)
        path = kind.folder / filename
        if not path.is_file():
            raise TemplateNotFound(template)
        mtime = path.stat().st_mtime
        return path.read_text(encoding="utf-8"), str(path), lambda: path.is_file() and path.stat().st_mtime == mtime

    def list_templates(self) -> list[str]:
        return sorted(f"{PREFIX}{k.name}/{p.name}" for k in all_kinds() for p in k.folder.glob("*.html"))


# The blueprint carries the loader: Flask asks every blueprint's loader for a template it cannot find.
bp.jinja_loader = KindTemplateLoader()  # type: ignore[assignment]


#: The widget of a part whose kind is not registered (a plain text field).
UNKNOWN_KIND_TEMPLATE = "web/_part_text.html"


def kind_template(name: Any) -> str:
    """The template of a part's widget, e.g. ``kinds/<name>/partial.html``."""
    kind = _kind(name)
    return PREFIX + kind.template if kind is not None else UNKNOWN_KIND_TEMPLATE


def kind_form_template(name: Any) -> str | None:
    """The template of a part's plain-form widget (``kinds/<name>/form.html``), or None where the kind
    answers in one text field or offers no plain form (``Kind.plain_form``)."""
    kind = _kind(name)
    template = kind.form_template if kind is not None else None
    return PREFIX + template if template else None


def kind_scripts(names: Iterable[Any]) -> list[str]:
    """URLs of the browser scripts of the kinds a page uses, each kind once, in order of first use."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        kind = _kind(name)
        if kind is None or kind.name in seen:
            continue
        seen.add(kind.name)
        out += [url_for("kinds.asset", name=kind.name, filename=f) for f in kind.assets if f.endswith(".js")]
    return out


_TYPES = {".js": "text/javascript", ".css": "text/css"}


@bp.get("/<name>/<filename>")
def asset(name: str, filename: str):
    kind = _kind(name)
    path = kind.asset_path(filename) if kind is not None else None
    if path is None:
        abort(404)
    mimetype = _TYPES.get(path.suffix, "application/octet-stream")
    return send_file(path, mimetype=mimetype, max_age=300)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["KindTemplateLoader", "bp", "init_app", "kind_form_template", "kind_scripts", "kind_template"]
