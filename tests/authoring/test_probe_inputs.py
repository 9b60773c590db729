"""Inputs a live probe found answered with a 500: each must be a 4xx JSON envelope naming the problem."""

from __future__ import annotations

import json

import pytest


def _nested_yaml(depth: int) -> str:
    return "a: " + "[" * depth + "]" * depth + "\n"


@pytest.mark.parametrize("depth", [200, 5000])
def test_deeply_nested_yaml_question_is_refused(authoring_client, authoring_creds, authoring_bearer, depth):
    r = authoring_client.post("/api/v1/questions", data=_nested_yaml(depth),
                              headers={**authoring_bearer(authoring_creds["author_token"]),
                                       "Content-Type": "application/yaml"})
    assert 400 <= r.status_code < 500, r.status_code
    assert "error" in r.get_json()


def test_deeply_nested_yaml_import_is_refused(authoring_client, authoring_creds, authoring_bearer):
    r = authoring_client.post("/api/v1/import", data=_nested_yaml(5000),
                              headers={**authoring_bearer(authoring_creds["author_token"]),
                                       "Content-Type": "application/yaml"})
    assert 400 <= r.status_code < 500, r.status_code
    assert "error" in r.get_json()


def test_deeply_nested_json_to_render_is_refused(client):
    body = '{"items": ' + "[" * 5000 + "]" * 5000 + "}"
    r = client.post("/render", data=body, headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500, r.status_code


def test_lone_surrogate_to_render_is_refused(client):
    r = client.post("/render", data=json.dumps({"items": ["a \ud800 b"]}),
                    headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500, r.status_code
    assert r.get_json()["error"]["field"] == "items[0]"


@pytest.mark.parametrize("version", [2 ** 63, 2 ** 64 + 5, -1])
def test_huge_version_to_publish_is_refused(authoring_client, authoring_creds, authoring_bearer, version):
    r = authoring_client.post("/api/v1/questions/svc-sample-double/publish", json={"version": version},
                              headers=authoring_bearer(authoring_creds["author_token"]))
    assert 400 <= r.status_code < 500, r.status_code
    assert r.get_json()["error"]["field"] == "version"
