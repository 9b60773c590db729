"""Built files that are missing are reported, not hidden: /readyz lists them (without failing: the service
still answers) and ``quizapp serve`` warns before it starts serving."""

from pathlib import Path

from quizapp.ops import assets


def test_readyz_names_a_missing_editor_bundle_and_stays_ready(client, monkeypatch, tmp_path):
    monkeypatch.setattr(assets, "EDITOR_BUNDLE", tmp_path / "absent" / "code-editor.js")
    body = client.get("/readyz").get_json()
    entry = body["checks"]["assets"]
    assert entry["ok"] is True and entry["complete"] is False
    assert [m["path"] for m in entry["missing"]] == [str(tmp_path / "absent" / "code-editor.js")]
    assert "plain text box" in entry["missing"][0]["effect"] and "scripts/setup" in entry["fix"]


def test_missing_catalogs_are_named_with_their_language(monkeypatch, tmp_path):
    real = Path.is_file

    def without_mo(path: Path) -> bool:
        return path.suffix != ".mo" and real(path)

    monkeypatch.setattr(Path, "is_file", without_mo)
    missing = assets.missing_assets()
    paths = [m["path"] for m in missing]
    assert any(p.endswith("quizapp/translations/zh/LC_MESSAGES/messages.mo") for p in paths)
    assert any(p.endswith("checkers/translations/zh/LC_MESSAGES/checkers.mo") for p in paths)
    assert all("zh" in m["effect"] for m in missing if m["path"].endswith(".mo"))


def test_a_checkout_after_setup_is_complete():
    # scripts/setup (run before the suite) compiles the catalogs and builds the editor bundle.
    assert assets.missing_assets() == []


def test_serve_warns_about_what_is_missing(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from quizapp import cli as cli_module

    monkeypatch.setattr(assets, "EDITOR_BUNDLE", tmp_path / "code-editor.js")
    served = []
    from quizapp import serving
    monkeypatch.setattr(serving, "serve_waitress", lambda app, **kwargs: served.append(kwargs["port"]))
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}", "SECRET_KEY": "assets"}
    result = CliRunner().invoke(cli_module.cli, ["serve", "--no-load", "--server", "waitress", "--port", "5999"],
                                env=env)
    assert result.exit_code == 0, result.output
    assert served == [5999]
    assert f"warning: {tmp_path / 'code-editor.js'} is missing: code answers use a plain text box" in result.output
