"""Authoring: drafts, self-tested saves, publish/retire, versions, export/import, re-grading.

``service`` holds the logic (no Flask); ``api`` the JSON endpoints under ``/api/v1``; ``pages`` the
author's browser pages under ``/author``.
"""
