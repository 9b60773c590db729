"""The curated tag list (questions/tags.yml): every bank question uses it, and the loader enforces it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from checkers.bank import BankError, load_bank, question_files
from checkers.bank.tags import TAGS_FILE, load_tag_list, validate_tag_list

ROOT = Path(__file__).resolve().parents[2] / "questions"


def test_curated_list_is_short_and_bilingual():
    tags = load_tag_list(ROOT)
    assert tags is not None and 10 <= len(tags) <= 40
    for tag, names in tags.items():
        assert names["en"].strip() and names["zh"].strip(), tag
        assert names["en"] != names["zh"] or names["en"].isascii() and len(names["en"]) <= 5, tag


def test_every_bank_question_uses_curated_tags_and_every_tag_is_used():
    tags = load_tag_list(ROOT)
    used = {t for q in load_bank(ROOT) for t in q["tags"]}
    assert used <= set(tags)
    assert used == set(tags), set(tags) - used  # no tag that filters to nothing


def test_tags_file_is_not_a_question():
    assert all(p.name != TAGS_FILE for p in question_files(ROOT))


def _write_bank(tmp_path: Path, tag: str) -> Path:
    src = yaml.safe_load((ROOT / "L1" / "q01-kl-definition-properties.yaml").read_text(encoding="utf-8"))
    src["tags"] = [tag]
    (tmp_path / "L1").mkdir()
    (tmp_path / "L1" / "one.yaml").write_text(yaml.safe_dump(src, allow_unicode=True), encoding="utf-8")
    (tmp_path / TAGS_FILE).write_text("kl-divergence: {en: KL divergence, zh: KL 散度}\n", encoding="utf-8")
    return tmp_path


def test_loader_rejects_a_tag_outside_the_list(tmp_path):
    root = _write_bank(tmp_path, "kl")
    with pytest.raises(BankError) as err:
        load_bank(root)
    assert err.value.field == "tags[0]" and "kl" in err.value.problem and TAGS_FILE in err.value.problem


def test_loader_accepts_a_listed_tag(tmp_path):
    assert load_bank(_write_bank(tmp_path, "kl-divergence"))[0]["tags"] == ["kl-divergence"]


@pytest.mark.parametrize("data, field", [
    ({"Bad Tag": {"en": "x", "zh": "x"}}, "Bad Tag"),
    ({"ok": {"en": "x"}}, "ok"),
    ({"ok": {"en": "x", "zh": " "}}, "ok.zh"),
    ([], "(top level)"),
    ({f"t{i}": {"en": "x", "zh": "x"} for i in range(41)}, "(top level)"),
])
def test_tag_list_schema(data, field):
    with pytest.raises(BankError) as err:
        validate_tag_list(data, "tags.yml")
    assert err.value.field == field
