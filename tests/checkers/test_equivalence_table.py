"""The fixture table is both the oracle of these tests and the source of docs/supported-input.md."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from checkers.kinds.symbolic.standalone import check_symbolic

ROOT = Path(__file__).resolve().parents[2]
ROWS = yaml.safe_load((ROOT / "tests/fixtures/equivalence_table.yaml").read_text(encoding="utf-8"))["rows"]


def test_table_is_big_and_covers_every_outcome():
    assert len(ROWS) >= 150
    outcomes = {r["outcome"] for r in ROWS}
    assert outcomes == {"correct", "incorrect", "undecided"}
    assert sum(r["outcome"] == "incorrect" for r in ROWS) >= 40


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}:{r['answer'][:30]}" for i, r in enumerate(ROWS)])
def test_row(row, inprocess):
    v = check_symbolic(row["expected"], row["answer"], row["variables"], row.get("mode", "equivalent"),
                               constants=row.get("constants"), decimals=row.get("decimals"))
    assert v.status == row["outcome"], (row["comment"], v.note, v.details, v.feedback["en"])
    assert v.consumes_attempt == (row["outcome"] != "undecided")


def test_supported_input_page_is_up_to_date():
    r = subprocess.run([sys.executable, str(ROOT / "scripts/gen_supported_input_doc.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
