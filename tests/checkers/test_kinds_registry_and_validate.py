"""The kinds' registry and the validate preview through the grading facade (each kind's own tests live in its
folder, checkers/kinds/<kind>/tests)."""

from pathlib import Path

from checkers import grading
from checkers.kinds import get_kind, kind_names

FB = {"en": "you forgot the 1/2", "zh": "漏掉了 1/2"}
NUM = {"kind": "numeric", "expected": {"expr": "ln(2)/2"}, "tolerance": {"rtol": 1e-4, "atol": 1e-9},
       "mistakes": [{"expr": "ln(2)", "note": "missing-half", "feedback": FB}]}


def test_all_kinds_registered():
    """Every kind folder of checkers/kinds registers its kind under the folder's name (a new folder needs
    no edit here)."""
    kinds_dir = Path(__file__).resolve().parents[2] / "checkers" / "kinds"
    folders = {p.parent.name for p in kinds_dir.glob("*/partial.html")}
    assert len(folders) >= 7 and kind_names() == sorted(folders)
    assert all(get_kind(name).folder.name == name for name in kind_names())


def test_validate_preview():
    r = grading.validate("ln(2)/2", NUM)
    assert r["valid"] and "0.346574" in r["interpreted_as"]["text"]
    r = grading.validate("ln(", NUM)
    assert not r["valid"] and r["error"]["message"]
    r = grading.validate("beta log r", {"kind": "symbolic", "expected": "beta*log(r)",
                                        "variables": {"beta": {"positive": True}, "r": {"positive": True}}})
    assert r["valid"] and r["interpreted_as"]["latex"] and r["interpreted_as"]["mathml"]
