"""The gettext catalogs: every language has a complete catalog (no untranslated or fuzzy entry, the same
placeholders as the English msgid), and the committed template lists exactly what the code asks for."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from checkers.languages import DEFAULT_LANG, LANGS

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "quizapp" / "translations"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def catalog_problems(catalog: Catalog) -> list[str]:
    """What keeps a catalog from being shipped: untranslated or fuzzy entries, changed placeholders."""
    problems = []
    for m in catalog:
        if not m.id:
            continue
        # a plural entry (ngettext) has a tuple of msgids and one msgstr per plural form of the language
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
        elif m.fuzzy:
            problems.append(f"fuzzy: {ids[0]!r}")
        elif any(sorted(PLACEHOLDER.findall(ids[-1])) != sorted(PLACEHOLDER.findall(s)) for s in strings):
            problems.append(f"placeholders differ: {ids[0]!r}")
    return problems


def _read(path: Path) -> Catalog:
    with open(path, "rb") as fh:
        return read_po(fh)


def _round_trip(catalog: Catalog) -> Catalog:
    buf = io.BytesIO()
    write_po(buf, catalog)
    buf.seek(0)
    return read_po(buf)


def test_the_check_finds_untranslated_fuzzy_and_placeholder_mistakes():
    good = Catalog(locale="zh")
    good.add("Submit", "提交")
    good.add("Step %(n)s", "第 %(n)s 步")
    good.add(("%(num)s day", "%(num)s days"), ("%(num)s 天",))   # ngettext: Chinese has one plural form
    assert catalog_problems(_round_trip(good)) == []
    bad = Catalog(locale="zh")
    bad.add("Submit", "")
    bad.add("Try again", "再试一次", flags=["fuzzy"])
    bad.add("Step %(n)s", "第几步")
    bad.add(("%(num)s day", "%(num)s days"), ("",))
    bad.add(("%(num)s week", "%(num)s weeks"), ("几周",))
    problems = catalog_problems(_round_trip(bad))
    assert problems == ["untranslated: 'Submit'", "fuzzy: 'Try again'", "placeholders differ: 'Step %(n)s'",
                        "untranslated: '%(num)s day'", "placeholders differ: '%(num)s week'"]


def test_every_language_has_a_complete_catalog():
    template = _read(TRANSLATIONS / "messages.pot")
    wanted = {m.id for m in template if m.id}
    assert len(wanted) > 100
    for lang in LANGS:
        if lang == DEFAULT_LANG:
            continue  # the msgids are the English text
        catalog = _read(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po")
        assert catalog_problems(catalog) == [], lang
        assert {m.id for m in catalog if m.id} == wanted, f"{lang}: run pybabel update (docs/translations.md)"
        assert not catalog.obsolete, f"{lang}: obsolete entries left over"


def test_template_is_current(tmp_path):
    """Extracting the code again gives the committed template's msgids (nothing added, nothing stale)."""
    out = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "-q", "extract", "-F", "babel.cfg",
                    "-o", str(out), "."], cwd=ROOT, check=True)
    fresh = {m.id for m in _read(out) if m.id}
    committed = {m.id for m in _read(TRANSLATIONS / "messages.pot") if m.id}
    assert fresh - committed == set(), "new text not in messages.pot: run pybabel extract (docs/translations.md)"
    assert committed - fresh == set(), "messages.pot lists text the code no longer uses"
