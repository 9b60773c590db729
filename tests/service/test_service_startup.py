"""A worker starts without torch: importing torch takes seconds, so the app factory, the answer kinds and
the blueprints import it only where a request needs the reference engine (a code exercise, an engine
call, a figure). Each check runs in a fresh interpreter, where ``sys.modules`` shows what was imported."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = r"""
import json, sys
sys.path.insert(0, {support!r})
import quiz_testing as testing

app = testing.make_app({tmp!r})
out = {{"after_create_app": "torch" in sys.modules}}
testing.load_sample(app)
client = app.test_client()
qid = testing.SAMPLE_QUESTION["id"]
statuses = [client.get("/api/v1/questions").status_code,
            client.get(f"/questions/{{qid}}?variant=7").status_code,
            client.post(f"/api/v1/questions/{{qid}}/attempts",
                        json={{"answers": {{"a": "1.0", "b": "yes"}}, "variant": 7}}).status_code]
out["statuses"] = statuses
out["after_first_requests"] = "torch" in sys.modules
client.get("/api/v1/reference")  # the engine listing does need it: the probe itself is sound
out["after_engine_listing"] = "torch" in sys.modules
print(json.dumps(out))
"""


def _probe(tmp_path) -> dict:
    code = _PROBE.format(support=str(ROOT / "tests" / "support"), tmp=str(tmp_path))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_creating_the_app_and_first_requests_do_not_import_torch(tmp_path):
    out = _probe(tmp_path)
    assert out["after_create_app"] is False
    assert out["statuses"] == [200, 200, 201]
    assert out["after_first_requests"] is False  # list, page and a numeric attempt need no engine
    assert out["after_engine_listing"] is True



_IMPORT_EACH = r"""
import os, subprocess, sys
# What the app needs outside quizapp (third-party packages, checkers) loads once here; each quizapp module is
# then imported first in a forked child, where an import cycle between quizapp modules still shows.
listing = subprocess.run([sys.executable, "-c", "import sys; from quizapp import create_app; "
                          "create_app({'DATABASE_URL': 'sqlite://'}); print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout.split()
for name in listing:
    if name.split(".")[0] != "quizapp" and name != "__main__":
        try:
            __import__(name)
        except Exception:
            pass
root = os.path.join(os.getcwd(), "quizapp")  # the files, not pkgutil.walk_packages: it imports each package
names = sorted("quizapp." + os.path.relpath(os.path.join(d, f), root)[:-3].replace(os.sep, ".")
               .removesuffix(".__init__") for d, _, files in os.walk(root) for f in files if f.endswith(".py"))
failed = []
for name in names:
    pid = os.fork()
    if pid == 0:
        try:
            __import__(name)
        except BaseException as exc:
            sys.stderr.write(f"{name}: {type(exc).__name__}: {exc}\n")
            os._exit(1)
        os._exit(0)
    if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
        failed.append(name)
print(len(names), failed)
"""


def test_every_quizapp_module_imports_first_on_its_own():
    """No module depends on another having been imported before it (tools, the CLI and tests import any)."""
    out = subprocess.run([sys.executable, "-c", _IMPORT_EACH], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    count, failed = out.stdout.strip().split(" ", 1)
    assert int(count) > 50 and failed == "[]", (failed, out.stderr[-2000:])
