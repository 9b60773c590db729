"""Run by tests/packaging/test_wheel_install.py with the Python of a fresh virtualenv holding only the built
wheel (dependencies reached through a path file), from a folder outside the checkout.

Prints one JSON object: where the packages were imported from, the status and markers of a question page of
every answer kind in every language, the code editor script's status, what /readyz says about assets, and
the self-test of one question per answer kind from the bank the wheel carries.
"""

import json
import tempfile
from pathlib import Path

from click.testing import CliRunner

import checkers
import quizapp
from checkers.bank import load_bank, selftest
from checkers.languages import LANGS
from quizapp import create_app
from quizapp.cli import cli
from quizapp.config import shipped_folder

def main() -> None:
    work = Path(tempfile.mkdtemp())
    env = {"DATABASE_URL": f"sqlite:///{work / 'wheel.sqlite3'}", "SECRET_KEY": "wheel-smoke"}
    runner = CliRunner()
    upgrade = runner.invoke(cli, ["db-upgrade"], env=env)
    load = runner.invoke(cli, ["load-bank"], env=env)

    app = create_app({"DATABASE_URL": env["DATABASE_URL"], "SECRET_KEY": "wheel-smoke", "TESTING": True,
                      "RATELIMIT_ENABLED": False})
    client = app.test_client()
    bank_path = shipped_folder("questions")
    bank = load_bank(str(bank_path))
    by_kind = {}
    for q in bank:
        for part in q["parts"]:
            by_kind.setdefault(part["kind"], q["id"])
    pages = {}
    for kind, qid in sorted(by_kind.items()):
        for lang in LANGS:
            resp = client.get(f"/questions/{qid}?variant=3&lang={lang}")
            html = resp.get_data(as_text=True)
            pages[f"{kind}/{lang}"] = {"qid": qid, "status": resp.status_code, "lang_attr": f'lang="{lang}' in html,
                                       "widget": f'data-kind="{kind}"' in html}
    scripts = {}
    for kind in by_kind:
        if (Path(checkers.__file__).parent / "kinds" / kind / "kind.js").is_file():
            scripts[kind] = client.get(f"/assets/kinds/{kind}/kind.js").status_code
    editor = client.get("/assets/vendor/code-editor.js")
    ready = client.get("/readyz").get_json()
    # The self-test from the install: one question per answer kind (engine, kinds, parser and code sandbox as
    # installed); tests/bank self-tests every question of the bank over 20 seeds.
    sampled = sorted(set(by_kind.values()))
    failed = [q["id"] for q in bank if q["id"] in sampled and not selftest(q, seeds=range(20)).ok]
    print(json.dumps({
        "quizapp": quizapp.__file__, "checkers": checkers.__file__, "bank_path": str(bank_path),
        "upgrade": upgrade.output, "load": load.output, "bank_size": len(bank), "pages": pages,
        "kind_scripts": scripts, "editor_status": editor.status_code, "editor_bytes": len(editor.get_data()),
        "assets": ready["checks"]["assets"], "selftest_run": sampled, "selftest_failed": failed,
    }))


# The grader pool starts its workers with multiprocessing's forkserver, which imports this file again in
# them: the work runs only when it is the program itself.
if __name__ == "__main__":
    main()
