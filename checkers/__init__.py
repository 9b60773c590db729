"""Grading for the RLHF quiz service: answer checkers and the torch reference engine.

This package never imports :mod:`quizapp` (imports go one way: ``quizapp`` -> ``checkers``).
"""
