"""Every code example in README.md and docs/*.md runs, against a live service, and shows what it really answers.

Fenced blocks are extracted from the Markdown:

* ``bash`` / ``sh``: each command runs in ``bash`` in one scratch folder per file (so ``-c jar -b jar`` keeps
  the cookie), with the documented address ``http://127.0.0.1:5000`` rewritten to the live server.
  ``NAME=value`` lines set variables for the later commands. A ``<name>`` in a command is the field
  ``name`` of an earlier response (e.g. ``<attempt_id>``). A ``# -> {...}`` comment (continued on
  ``#`` lines indented further) is the shape of the previous command's JSON answer: ``"key": value``
  must match the value, a bare ``"key"`` must be present, ``[{...}]`` applies to every element.
* ``python``: runs as a script; a ``print(...)  # -> text`` line must print exactly ``text``.
* ``json``: preceded by ``<!-- response-of: METHOD /path -> STATUS -->``: that request is made and the
  block must match the answer.
* ``yaml``: must load as a mapping (the question-format illustration).
* no language or ``text``: diagrams and plain text, not code.

A block that cannot run here (installers, servers, a PostgreSQL URL) is preceded by
``<!-- not-executed: reason -->`` and listed in NOT_EXECUTED below, so nothing is skipped silently.

Numbers shown are compared to 1e-12 relative. A shell block preceded by ``<!-- rounded: numbers to N
significant digits ... -->`` (the generated docs/reference.md, whose values come from the engine and are
rounded so that the page does not depend on a platform's last bits) shows them rounded: each must be
within 0.6 of a unit of its N-th significant digit of the answer (half a unit of rounding, plus room for
another platform's last bits), or 1e-12 absolute (an exact zero's rounding noise is shown as 0).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOC_FILES = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
DOCUMENTED_ADDRESS = "http://127.0.0.1:5000"
LANGS = {"bash", "sh", "python", "json", "yaml", "js"}
PLAIN = {"", "text"}  # diagrams and plain text: no code to run

# (file, first line of the block): the blocks that are marked not-executed, each for a reason given in
# the Markdown. A new marked block must be added here on purpose.
NOT_EXECUTED = {
    ("README.md", "scripts/serve      # install into .venv, migrate SQLite, load the bank, serve on http://127.0.0.1:5000"),
    ("README.md", "quizapp db-upgrade                  # create/upgrade the schema (Alembic migrations in migrations/)"),
    ("README.md", "pip wheel --no-deps -w dist .            # needs npm for the editor (QUIZ_BUILD_WITHOUT_EDITOR=1: a text box)"),
    ("README.md", "quizapp create-author alice              # prompts for the password (or --password-stdin)"),
    ("README.md", ".venv/bin/pip install -e '.[postgres]'      # psycopg 3"),
    ("README.md", ".venv/bin/python benchmarks/bench_gae.py          # engine GAE vs a per-timestep Python loop on (256, 4096)"),
    ("docs/deploy.md", "REDIS_URL=redis://redis-host:6379/0"),
}

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*(not-executed|response-of|rounded):\s*(.*?)\s*-->\s*$")
ROUNDED = re.compile(r"numbers to (\d+) significant digits")
ROUNDED_ABS_TOL = 1e-12  # what a rounded page shows as 0 (scripts/gen_reference_doc.py SHOWN_ZERO)
ROUNDED_UNITS = 0.6  # of the last shown digit: 0.5 of rounding plus a platform's float noise, not a whole unit


@dataclass
class Block:
    file: str
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    marker: tuple[str, str] | None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def first_line(self) -> str:
        return self.text.splitlines()[0] if self.text else ""

    @property
    def digits(self) -> int | None:
        """Significant digits of the numbers shown, when the block is marked rounded (else exact)."""
        if not self.marker or self.marker[0] != "rounded":
            return None
        m = ROUNDED.search(self.marker[1])
        assert m, f"{self.where}: cannot read the rounding marker {self.marker[1]!r}"
        return int(m.group(1))


def extract_blocks(file: str, text: str) -> list[Block]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        assert i < len(lines), f"{file}:{start + 1}: unclosed code block"
        prev = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        mm = MARKER.match(prev.strip())
        blocks.append(Block(file, start + 1, m.group(1), "\n".join(body), (mm.group(1), mm.group(2)) if mm else None))
        i += 1
    return blocks


def doc_blocks(file: str) -> list[Block]:
    return extract_blocks(file, (ROOT / file).read_text(encoding="utf-8"))


# ------------------------------------------------------------------ shapes shown in "# -> {...}"

ANY = object()  # a bare key: present, any value
_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}\[\]:,]))')


def parse_shape(text: str) -> Any:
    """JSON, except that an object member may be a bare ``"key"`` (the key must be present)."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot read the shown output at {text[pos:pos + 30]!r}")
        s, num, lit, punct = m.groups()
        tokens.append(("str", json.loads(s)) if s else ("num", json.loads(num)) if num
                      else ("lit", json.loads(lit)) if lit else ("p", punct))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    value, end = _value(tokens, 0)
    if end != len(tokens):
        raise ValueError(f"trailing text in the shown output {text!r}")
    return value


def _value(tokens, i):
    kind, v = tokens[i]
    if kind != "p":
        return v, i + 1
    if v == "[":
        out, i = [], i + 1
        while tokens[i] != ("p", "]"):
            item, i = _value(tokens, i)
            out.append(item)
            if tokens[i] == ("p", ","):
                i += 1
        return out, i + 1
    if v == "{":
        out, i = {}, i + 1
        while tokens[i] != ("p", "}"):
            kind, key = tokens[i]
            if kind != "str":
                raise ValueError(f"object key expected, got {key!r}")
            i += 1
            if tokens[i] == ("p", ":"):
                out[key], i = _value(tokens, i + 1)
            else:
                out[key] = ANY
            if tokens[i] == ("p", ","):
                i += 1
        return out, i + 1
    raise ValueError(f"unexpected {v!r} in the shown output")


def shape_problems(shown: Any, actual: Any, path: str = "$", digits: int | None = None) -> list[str]:
    """Where ``actual`` differs from the shown shape (empty when it matches); ``digits``: numbers are shown
    rounded to that many significant digits."""
    if shown is ANY:
        return []
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r:.80}"]
        out = []
        for key, value in shown.items():
            if key not in actual:
                out.append(f"{path}: key {key!r} missing (has {sorted(actual)})")
            else:
                out += shape_problems(value, actual[key], f"{path}.{key}", digits)
        return out
    if isinstance(shown, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {actual!r:.80}"]
        if len(shown) == 1 and isinstance(shown[0], dict):  # [{...}]: every element, at least one
            if not actual:
                return [f"{path}: expected a non-empty list"]
            return [p for i, a in enumerate(actual) for p in shape_problems(shown[0], a, f"{path}[{i}]", digits)]
        if len(shown) != len(actual):
            return [f"{path}: expected {len(shown)} elements, got {len(actual)}"]
        return [p for i, (s, a) in enumerate(zip(shown, actual))
                for p in shape_problems(s, a, f"{path}[{i}]", digits)]
    if isinstance(shown, bool) or shown is None or isinstance(shown, str):
        return [] if type(actual) is type(shown) and actual == shown else [f"{path}: shown {shown!r}, got {actual!r}"]
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return [f"{path}: shown {shown!r}, got {actual!r}"]
    # A number shown must be the number answered (shortest round-trip repr, as JSON prints it), or that
    # number rounded to ``digits`` significant digits.
    if digits is None:
        close = math.isclose(shown, actual, rel_tol=1e-12, abs_tol=0.0)
    else:
        scale = max(abs(shown), abs(actual))
        unit = 10.0 ** (math.floor(math.log10(scale)) - digits + 1) if scale > 0 else 0.0
        close = abs(shown - actual) <= max(ROUNDED_UNITS * unit, ROUNDED_ABS_TOL)
    return [] if close else [f"{path}: shown {shown!r}, got {actual!r}"]


# ------------------------------------------------------------------ shell blocks

@dataclass
class Command:
    text: str
    line: int
    shown: str | None = None


_INLINE_SHOWN = re.compile(r"\s#\s*->\s*(.*)$")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(\S+)$")
_PLACEHOLDER = re.compile(r"<([a-z_]+)>")


def _complete(text: str) -> bool:
    if text.rstrip().endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:  # an open quote: the command goes on on the next line
        return False
    return True


def split_commands(block: Block) -> list[Command]:
    commands: list[Command] = []
    buf: list[str] = []
    continuing = False  # inside a multi-line "# -> " comment
    for n, line in enumerate(block.text.splitlines(), start=block.line + 1):
        stripped = line.strip()
        if buf:
            buf.append(line)
        elif not stripped:
            continuing = False
            continue
        elif stripped.startswith("#"):
            body = stripped[1:]
            if body.lstrip().startswith("->"):
                assert commands, f"{block.file}:{n}: output shown before any command"
                commands[-1].shown = body.lstrip()[2:].strip()
                continuing = True
            elif continuing and body.startswith("  "):
                commands[-1].shown += " " + body.strip()
            else:
                continuing = False
            continue
        else:
            buf = [line]
            continuing = False
        text = "\n".join(buf)
        if _complete(text):
            cmd = Command(text, n - len(buf) + 1)
            m = _INLINE_SHOWN.search(buf[-1])
            if m:
                cmd.shown = m.group(1).strip()
            commands.append(cmd)
            buf = []
    assert not buf, f"{block.where}: the last command is incomplete"
    return commands


class ShellSession:
    """Runs a file's shell blocks in order: shared folder, variables and earlier responses."""

    def __init__(self, base_url: str, cwd: Path):
        self.base_url, self.cwd = base_url, cwd
        self.env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        self.env["NO_PROXY"] = "127.0.0.1,localhost"
        self.fields: dict[str, Any] = {}

    def _prepare(self, text: str, where: str) -> str:
        text = text.replace(DOCUMENTED_ADDRESS, self.base_url)

        def fill(m: re.Match) -> str:
            assert m.group(1) in self.fields, f"{where}: <{m.group(1)}> is no field of an earlier response"
            return str(self.fields[m.group(1)])
        return _PLACEHOLDER.sub(fill, text)

    def run(self, block: Block, cmd: Command) -> list[str]:
        where = f"{block.file}:{cmd.line}"
        text = self._prepare(cmd.text, where)
        assign = _ASSIGN.match(text.strip())
        proc = subprocess.run(["bash", "-c", text + (f'\nprintf %s "${assign.group(1)}"' if assign else "")],
                              cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            return [f"{where}: exit {proc.returncode}: {proc.stderr.strip()[:300]}"]
        if assign:
            self.env[assign.group(1)] = proc.stdout
            return []
        if not text.lstrip().startswith("curl"):
            return []
        try:
            answer = json.loads(proc.stdout)
        except ValueError:
            return [f"{where}: the answer is not JSON: {proc.stdout[:200]!r}"]
        if isinstance(answer, dict):
            self.fields.update({k: v for k, v in answer.items() if isinstance(v, (str, int))})
        if cmd.shown is None:
            if isinstance(answer, dict) and "error" in answer:
                return [f"{where}: the example fails: {answer['error']}"]
            return []
        return [f"{where}: {p}" for p in shape_problems(parse_shape(cmd.shown), answer, digits=block.digits)]


# ------------------------------------------------------------------ python and json blocks

def run_python(block: Block, base_url: str, cwd: Path) -> list[str]:
    script = cwd / f"example_{block.line}.py"
    script.write_text(block.text.replace(DOCUMENTED_ADDRESS, base_url), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["NO_PROXY"] = "127.0.0.1,localhost"
    proc = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return [f"{block.where}: exit {proc.returncode}: {proc.stderr.strip()[-600:]}"]
    shown = [m.group(1).strip() for line in block.text.splitlines()
             if "print(" in line and (m := _INLINE_SHOWN.search(line))]
    printed = [line.strip() for line in proc.stdout.splitlines()]
    problems, at = [], 0
    for text in shown:  # in order, each shown line is printed
        while at < len(printed) and printed[at] != text:
            at += 1
        if at == len(printed):
            problems.append(f"{block.where}: shown {text!r} was not printed; printed {printed}")
            break
        at += 1
    return problems


def run_json(block: Block, base_url: str) -> list[str]:
    try:
        shown = json.loads(block.text)
    except ValueError as err:
        return [f"{block.where}: not JSON: {err}"]
    if not block.marker or block.marker[0] != "response-of":
        return [f"{block.where}: a json block needs <!-- response-of: METHOD /path -> STATUS --> (or not-executed)"]
    m = re.fullmatch(r"(GET|POST)\s+(\S+)\s*->\s*(\d{3})", block.marker[1])
    if not m:
        return [f"{block.where}: cannot read the marker {block.marker[1]!r}"]
    method, path, status = m.group(1), m.group(2), int(m.group(3))
    req = urllib.request.Request(base_url + path, method=method, data=b"{}" if method == "POST" else None,
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=60) as resp:
            code, body = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        code, body = err.code, err.read()
    problems = [] if code == status else [f"{block.where}: {method} {path} answered {code}, the doc says {status}"]
    return problems + [f"{block.where}: {p}" for p in shape_problems(shown, json.loads(body))]


# ------------------------------------------------------------------ the tests

def test_every_block_runs_or_is_marked_with_a_reason():
    marked = set()
    for file in DOC_FILES:
        for block in doc_blocks(file):
            assert block.lang in LANGS | PLAIN, f"{block.where}: a block needs a language of {sorted(LANGS)} (got {block.lang!r})"
            if block.marker and block.marker[0] == "not-executed":
                assert len(block.marker[1]) > 10, f"{block.where}: say why the block is not executed"
                marked.add((file, block.first_line))
    assert marked == NOT_EXECUTED, "the not-executed blocks changed: update NOT_EXECUTED on purpose"


def test_readme_has_runnable_examples_of_each_language():
    """The runner really runs things: the README's shell, Python and JSON examples are not all marked."""
    langs = {b.lang for b in doc_blocks("README.md") if not (b.marker and b.marker[0] == "not-executed")}
    assert {"bash", "python", "json"} <= langs


@pytest.mark.parametrize("file", DOC_FILES)
def test_doc_examples_run_and_show_real_answers(file, docs_live_server, tmp_path):
    base = docs_live_server
    session = ShellSession(base, tmp_path)
    problems: list[str] = []
    ran = 0
    for block in doc_blocks(file):
        if block.lang in PLAIN or (block.marker and block.marker[0] == "not-executed"):
            continue
        ran += 1
        if block.lang in ("bash", "sh"):
            for cmd in split_commands(block):
                problems += session.run(block, cmd)
        elif block.lang == "python":
            problems += run_python(block, base, tmp_path)
        elif block.lang == "json":
            problems += run_json(block, base)
        elif block.lang == "js":
            problems += check_js(block, tmp_path)
        elif block.lang == "yaml":
            loaded = yaml.safe_load(block.text)
            if not isinstance(loaded, dict):
                problems.append(f"{block.where}: the YAML example is not a mapping")
    assert not problems, "\n".join(problems)
    if file == "README.md":
        assert ran >= 5


def check_js(block, tmp_path: Path) -> list[str]:
    """A browser snippet cannot run without the page; node checks that it is valid JavaScript."""
    src = tmp_path / "snippet.js"
    src.write_text(block.text, encoding="utf-8")
    done = subprocess.run(["node", "--check", str(src)], capture_output=True, text=True)
    return [] if done.returncode == 0 else [f"{block.where}: not valid JavaScript: {done.stderr.strip()[:300]}"]


# ------------------------------------------------------------------ the runner's own parts

def test_shape_parser_and_matcher():
    shown = parse_shape('{"a", "b": 1.5, "c": [{"id", "ok": true}], "d": [[0.5, "nan"]], "e": null}')
    good = {"a": [1], "b": 1.5, "c": [{"id": "x", "ok": True}, {"id": "y", "ok": True, "more": 1}],
            "d": [[0.5, "nan"]], "e": None, "extra": 0}
    assert shape_problems(shown, good) == []
    assert shape_problems(shown, {**good, "b": 1.6})
    assert shape_problems(shown, {k: v for k, v in good.items() if k != "a"})
    assert shape_problems(shown, {**good, "c": [{"id": "x", "ok": 1}]})  # 1 is not true
    assert shape_problems(shown, {**good, "c": []})
    assert shape_problems(shown, {**good, "d": [[0.5, "nan", 1.0]]})
    assert shape_problems(shown, {**good, "e": 0})
    with pytest.raises(ValueError):
        parse_shape('{"a": }')


def test_rounded_numbers_match_at_the_digits_shown_only_in_a_marked_block():
    third = 1 / 3
    assert shape_problems(parse_shape('{"x": [0.333333]}'), {"x": [third]})  # unmarked: exact
    assert shape_problems(parse_shape('{"x": [0.333333]}'), {"x": [third]}, digits=6) == []
    assert shape_problems(parse_shape('{"x": [0.333334]}'), {"x": [third]}, digits=6)  # one unit off
    assert shape_problems(parse_shape('{"x": [0.333334]}'), {"x": [0.3333336]}, digits=6) == []
    assert shape_problems(parse_shape('{"x": [-2.0]}'), {"x": [-2.0000051]}, digits=6) == []
    assert shape_problems(parse_shape('{"x": [-2.0]}'), {"x": [-2.0000071]}, digits=6)
    assert shape_problems(parse_shape('{"x": [10.0]}'), {"x": [9.999996]}, digits=6) == []  # rounded up a decade
    assert shape_problems(parse_shape('{"x": [65660000.0]}'), {"x": [65659969.1]}, digits=6) == []  # 6.56600e7
    assert shape_problems(parse_shape('{"x": [65660000.0]}'), {"x": [65661969.1]}, digits=6)  # 6.56620e7
    assert shape_problems(parse_shape('{"x": 0.0}'), {"x": 2e-17}, digits=6) == []  # noise of an exact 0
    assert shape_problems(parse_shape('{"x": 0.0}'), {"x": 2e-6}, digits=6)
    assert shape_problems(parse_shape('{"x": "nan"}'), {"x": 0.5}, digits=6)
    block = extract_blocks("x.md", "<!-- rounded: numbers to 6 significant digits, below 1e-12 as 0 -->\n"
                                   "```bash\ncurl -s $B/x\n```\n")[0]
    assert block.digits == 6
    assert extract_blocks("x.md", "```bash\ncurl -s $B/x\n```\n")[0].digits is None


def test_shell_blocks_are_split_into_commands_with_their_shown_outputs():
    block = Block("x.md", 1, "bash", "\n".join([
        "B=http://127.0.0.1:5000/api/v1",
        "curl -s \"$B/a\"   # -> {\"k\"}",
        "# a description",
        "curl -s -X POST $B/b -d '{\"x\": 1,",
        "     \"y\": 2}'",
        "# -> {\"status\": \"correct\",",
        "#     \"steps\"}",
        "curl -s $B/c \\",
        "     -H 'A: b'",
    ]), None)
    cmds = split_commands(block)
    assert [c.line for c in cmds] == [2, 3, 5, 9]
    assert cmds[0].shown is None and cmds[1].shown == '{"k"}'
    assert cmds[2].shown == '{"status": "correct", "steps"}' and cmds[3].shown is None
    assert cmds[2].text.endswith("\"y\": 2}'")
