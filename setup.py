"""The package build's own steps (``pip wheel .``, ``python -m build``): everything the product serves goes
into the wheel, built from source here rather than by hand.

pyproject.toml holds the metadata; this file only adds to setuptools' ``build_py``:

* the gettext catalogs (``quizapp/translations``, ``checkers/translations``) compiled to ``.mo`` files
  (each answer kind's own catalog, ``checkers/kinds/<kind>/<lang>.po``, ships as it is: checkers.i18n reads it);
* the code editor bundle (``quizapp/static/vendor/code-editor.js``), built from ``frontend/`` with npm when the
  checkout does not have it yet; a build without npm fails unless ``QUIZ_BUILD_WITHOUT_EDITOR=1`` says that a
  plain text box is wanted (the page then falls back to a textarea and ``/readyz`` says the editor is missing);
* the question bank (``questions/``) and the Alembic migrations (``migrations/``) copied into the package as
  ``quizapp/bundled/``, where an installed service finds them when there is no checkout around it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
CATALOGS = (("quizapp/translations", "messages"), ("checkers/translations", "checkers"))
EDITOR = Path("quizapp/static/vendor/code-editor.js")
BUNDLED = ("questions", "migrations")


def _compile_catalogs(build_lib: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for folder, domain in CATALOGS:
        for po in sorted((ROOT / folder).glob(f"*/LC_MESSAGES/{domain}.po")):
            target = build_lib / po.relative_to(ROOT).with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as src:
                catalog = read_po(src)
            with target.open("wb") as out:
                write_mo(out, catalog)


def _editor_bundle(build_lib: Path) -> None:
    source = ROOT / EDITOR
    if not source.is_file():
        npm = shutil.which("npm")
        if npm is None:
            if os.environ.get("QUIZ_BUILD_WITHOUT_EDITOR") == "1":
                return
            raise SystemExit("building the code editor bundle needs npm (Node.js); set QUIZ_BUILD_WITHOUT_EDITOR=1 "
                             "to build without it (code answers then use a plain text box)")
        frontend = ROOT / "frontend"
        if not (frontend / "node_modules").is_dir():  # exact versions from package-lock.json
            subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=frontend, check=True)
        subprocess.run([npm, "run", "--silent", "build"], cwd=frontend, check=True)
    target = build_lib / EDITOR
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def _bundle_data(build_lib: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in BUNDLED:
        target = build_lib / "quizapp" / "bundled" / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / name, target, ignore=ignore)


class BuildPyWithAssets(build_py):
    """setuptools' build_py, then the catalogs, the editor bundle and the bundled bank and migrations."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout itself (scripts/setup builds these)
            return
        build_lib = Path(self.build_lib)
        _compile_catalogs(build_lib)
        _editor_bundle(build_lib)
        _bundle_data(build_lib)


setup(cmdclass={"build_py": BuildPyWithAssets})
