"""A YAML syntax error carries its line and column as fields of the error (BankError.line/column), and the
editor's failure row points there; nothing reads them back out of the message."""

from __future__ import annotations

import pytest

from checkers.bank import BankError, parse_yaml

BROKEN = "id: q\nlevel: L1\ntitle: [unclosed\nprompt: x\n"


def test_the_loader_names_line_and_column_as_fields():
    with pytest.raises(BankError) as info:
        parse_yaml(BROKEN, "q.yaml")
    exc = info.value
    assert (exc.line, exc.column) != (None, None)
    assert exc.field == f"line {exc.line}, column {exc.column}"
    assert 3 <= exc.line <= 5 and exc.column >= 1


def test_a_bank_error_without_a_position_has_none():
    exc = BankError("q.yaml", "parts[0].kind", "unknown kind")
    assert exc.line is None and exc.column is None


def test_the_editor_row_of_a_yaml_error_points_at_its_line(authoring_client, authoring_passwords, authoring_login):
    csrf = authoring_login(authoring_client, "alice", authoring_passwords["alice"])
    with pytest.raises(BankError) as info:
        parse_yaml(BROKEN)
    r = authoring_client.post("/author/save", data={"yaml": BROKEN, "csrf_token": csrf})
    assert r.status_code == 422
    where = f'data-line="{info.value.line}" data-column="{info.value.column}"'.encode()
    assert where in r.data and b"not valid YAML" in r.data
