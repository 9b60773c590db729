"""The built wheel serves the whole product: installed in a fresh virtualenv outside the checkout, it has every
answer kind's widget and script, both languages' compiled catalogs, the code editor bundle, the migrations and
the bank, and the bank's questions pass their self-test from there (one per answer kind; tests/bank runs
them all); the kinds' own tests (``checkers/kinds/<kind>/tests``) stay out of it.

The wheel is built by the package build itself (``pip wheel``, setup.py's build step compiles the catalogs,
bundles the editor, copies the bank and the migrations). The fresh virtualenv reaches the dependencies (torch,
sympy, Flask...) through a path file naming this environment's site-packages, so nothing is downloaded; the
project itself comes only from the wheel (this environment's editable install is not on that path).
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMOKE = Path(__file__).with_name("wheel_smoke.py")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the copy of the checkout it was built from)."""
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"
    # Build from a copy of the files git knows (tracked or not ignored): the build must not depend on what a checkout has built by hand.
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    if (ROOT / "frontend" / "node_modules").is_dir():  # npm ci's result: spares the build a second install
        shutil.copytree(ROOT / "frontend" / "node_modules", src / "frontend" / "node_modules", symlinks=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(out / "dist"), str(src)], check=True, capture_output=True)
    (whl,) = (out / "dist").glob("rlhf_quiz-*.whl")
    return whl, src


def test_the_wheel_lists_every_served_file(built):
    wheel, src = built
    names = zipfile.ZipFile(wheel).namelist()
    kinds = sorted(p.name for p in (ROOT / "checkers" / "kinds").iterdir() if (p / "partial.html").is_file())
    for kind in kinds:
        assert f"checkers/kinds/{kind}/partial.html" in names, kind
        if (ROOT / "checkers" / "kinds" / kind / "kind.js").is_file():
            assert f"checkers/kinds/{kind}/kind.js" in names, kind
    assert "quizapp/translations/zh/LC_MESSAGES/messages.mo" in names
    assert "checkers/translations/zh/LC_MESSAGES/checkers.mo" in names
    kind_catalogs = {str(p.relative_to(ROOT)) for p in (ROOT / "checkers" / "kinds").glob("*/zh.po")}
    assert kind_catalogs and kind_catalogs <= set(names)  # each kind's text, read from its .po
    assert "quizapp/static/vendor/code-editor.js" in names
    starters = {str(p.relative_to(ROOT)) for p in (ROOT / "checkers" / "kinds").glob("*/starter.yaml")}
    assert starters and starters <= set(names)
    kind_tests = {f"{p.relative_to(ROOT)}/" for p in (ROOT / "checkers" / "kinds").glob("*/tests")}
    assert kind_tests and not [n for n in names if n.startswith(tuple(kind_tests))]  # they stay in the checkout
    versions = {p.name for p in (ROOT / "migrations" / "versions").glob("*.py")}
    assert {f"quizapp/bundled/migrations/versions/{v}" for v in versions} <= set(names)
    bank = {str(p.relative_to(src)) for p in (src / "questions").rglob("*.yaml")}
    assert {f"quizapp/bundled/{b}" for b in bank} <= set(names)


def test_the_installed_wheel_serves_every_kind_in_every_language(built, tmp_path):
    wheel, src = built
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "quiz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUIZ_BANK_PATH", "DATABASE_URL")}
    run = subprocess.run([str(python), str(SMOKE)], cwd=outside, env=env, capture_output=True, text=True,
                         timeout=1800)
    assert run.returncode == 0, run.stderr[-4000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert report["quizapp"].startswith(str(site)) and report["checkers"].startswith(str(site))
    assert report["bank_path"].startswith(str(site))
    assert "migrated empty" in report["upgrade"]
    assert report["bank_size"] == len(list((src / "questions").rglob("*.yaml")))  # tags.yml is .yml
    assert f"{report['bank_size']} added" in report["load"]
    kinds = sorted(p.name for p in (ROOT / "checkers" / "kinds").iterdir() if (p / "partial.html").is_file())
    assert sorted({k.split("/")[0] for k in report["pages"]}) == kinds
    for key, page in report["pages"].items():
        assert page["status"] == 200 and page["lang_attr"] and page["widget"], (key, page)
    assert report["kind_scripts"] and set(report["kind_scripts"].values()) == {200}
    assert report["editor_status"] == 200 and report["editor_bytes"] > 10_000
    assert report["assets"] == {"ok": True, "complete": True}
    assert len(report["selftest_run"]) >= 2 and report["selftest_failed"] == []
