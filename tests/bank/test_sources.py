"""A question that names a framework or a paper/method in learner-visible text carries a source for it.

The bank's claims about verl, TRL, a DPO variant or a paper's result are checked against the upstream
code or the paper once, when written; the ``sources`` list records where. This test keeps that promise
for every question: if its title, prompts, hints, options, mistake feedback, key points, pitfalls or
worked solution name one of ``NAMES``, some ``sources`` entry (top level or on a part) must name it too
in its ``claim``, ``repo`` or ``paper``.

Matching rule (both sides): the name as a whole word, case-insensitive -- not preceded or followed by
a letter or digit, so ``GRPO`` matches "Dr. GRPO" and "verl's", but ``DPO`` does not match "GDPO" and
``PPO`` does not match "GRPO". The list is deliberately short: the frameworks the engine mirrors and
the methods and papers the bank states facts about. Add a name here when the bank starts citing it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from checkers.bank import load_bank_files

ROOT = Path(__file__).resolve().parents[2]

#: Frameworks, methods and papers whose mention in a question needs a source that names them.
NAMES = (
    # frameworks
    "verl", "TRL", "OpenRLHF", "DeepSpeed-Chat",
    # methods
    "PPO", "TRPO", "DPO", "IPO", "SimPO", "ORPO", "KTO", "CPO", "GRPO", "RLOO", "ReMax", "REINFORCE++",
    "DAPO", "GSPO", "CISPO",
    # papers named by author or model
    "InstructGPT", "Ziegler", "Schulman", "Gao",
)

_PATTERNS = {name: re.compile(r"(?<![A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9])", re.IGNORECASE)
             for name in NAMES}

#: Keys whose text the learner sees: the question's, a part's, an option's, a mistake's, the solution's.
_VISIBLE_TOP = ("title", "prompt")
_VISIBLE_PART = ("prompt", "hint", "hints", "title")
_VISIBLE_SOLUTION = ("key_points", "pitfalls", "worked")


def _strings(node: Any) -> Iterator[str]:
    """Every string inside a text field (a {lang: text} map, a list of them, or plain text)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def visible_text(question: dict) -> str:
    """The learner-visible text of a question, joined (all languages)."""
    chunks: list[str] = []
    for key in _VISIBLE_TOP:
        chunks.extend(_strings(question.get(key)))
    for part in question.get("parts", []):
        for key in _VISIBLE_PART:
            chunks.extend(_strings(part.get(key)))
        for option in part.get("options", []) or []:
            if isinstance(option, dict):
                chunks.extend(_strings(option.get("text")))
        for mistake in part.get("mistakes", []) or []:
            chunks.extend(_strings(mistake.get("feedback")))
    solution = question.get("solution") or {}
    for key in _VISIBLE_SOLUTION:
        chunks.extend(_strings(solution.get(key)))
    return "\n".join(chunks)


def source_text(question: dict) -> str:
    """claim, repo and paper of every sources entry, at the top level and on the parts."""
    entries = list(question.get("sources", []))
    for part in question.get("parts", []):
        entries.extend(part.get("sources", []))
    return "\n".join(str(e.get(k, "")) for e in entries for k in ("claim", "repo", "paper"))


def unsourced_names(question: dict) -> list[str]:
    """Names in ``NAMES`` that the visible text mentions and no source entry mentions."""
    text, sources = visible_text(question), source_text(question)
    return [name for name, pat in _PATTERNS.items() if pat.search(text) and not pat.search(sources)]


BANK = load_bank_files(ROOT / "questions")


@pytest.mark.parametrize("path, question", BANK, ids=[p.stem for p, _ in BANK])
def test_every_named_framework_or_paper_has_a_source(path, question):
    missing = unsourced_names(question)
    assert missing == [], f"{path.relative_to(ROOT)} names {missing} without a sources entry naming them"


def test_the_bank_names_sources_at_all():
    # The rule must bite somewhere: most of the bank talks about PPO, GRPO, DPO or a framework.
    cited = [q for _, q in BANK if any(p.search(visible_text(q)) for p in _PATTERNS.values())]
    assert len(cited) >= 40


def _question(text: str, sources: list[dict] | None = None, where: str = "feedback") -> dict:
    part: dict = {"id": "a", "kind": "numeric", "prompt": {"en": "Compute.", "zh": "计算。"},
                  "mistakes": [{"note": "m", "feedback": {"en": "", "zh": ""}}]}
    q: dict = {"title": {"en": "T", "zh": "T"}, "prompt": {"en": "", "zh": ""}, "parts": [part],
               "solution": {"key_points": {"en": [], "zh": []}}}
    if where == "feedback":
        part["mistakes"][0]["feedback"]["en"] = text
    elif where == "key_points":
        q["solution"]["key_points"]["en"] = [text]
    elif where == "option":
        part["options"] = [{"id": "x", "text": {"en": text, "zh": text}}]
    if sources is not None:
        q["sources"] = sources
    return q


@pytest.mark.parametrize("where", ["feedback", "key_points", "option"])
def test_a_named_method_without_a_source_is_reported(where):
    assert unsourced_names(_question("That is the DPO sigmoid loss.", where=where)) == ["DPO"]


def test_a_source_naming_the_method_in_claim_repo_or_paper_satisfies_it():
    paper = [{"claim": "the loss", "paper": "Rafailov et al. 2023, DPO", "section": "§4"}]
    claim = [{"claim": "dpo uses a fixed preference set", "paper": "x", "section": "y"}]
    repo = [{"claim": "masked mean", "repo": "volcengine/verl", "file": "f.py", "function": "g"}]
    assert unsourced_names(_question("That is the DPO loss.", paper)) == []
    assert unsourced_names(_question("That is the DPO loss.", claim)) == []
    assert unsourced_names(_question("verl's masked mean.", repo)) == []
    # A source about something else does not count.
    assert unsourced_names(_question("verl's masked mean.", paper)) == ["verl"]


def test_names_match_whole_words_only():
    assert unsourced_names(_question("GDPO normalises each reward; GRPO sums first.")) == ["GRPO"]
    assert unsourced_names(_question("Dr. GRPO drops the std.")) == ["GRPO"]
    assert unsourced_names(_question("Use ctrl-c; the ripostes; a kto_loss call.")) == ["KTO"]
    # A source naming GDPO is not a source for DPO.
    gdpo = [{"claim": "GDPO normalises each reward first", "paper": "p", "section": "s"}]
    assert unsourced_names(_question("DPO and GDPO.", gdpo)) == ["DPO"]
