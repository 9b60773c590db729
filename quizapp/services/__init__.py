"""Service layer: plain functions over a SQLAlchemy session, shared by the API and the web pages.

They raise :mod:`quizapp.errors` exceptions (never Flask ones) and return JSON-able dicts.
"""
