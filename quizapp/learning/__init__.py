"""Learner memory: the history of one's attempts, spaced review of questions (FSRS) and progress.

Services (no Flask): :mod:`.history`, :mod:`.progress`, :mod:`.charts`, and the review scheduler
:mod:`quizapp.study.review`. The JSON API (:mod:`.api`, blueprint ``learning_api``) and the pages History /
Review / Progress (:mod:`.pages`, blueprint ``learning``) read them for the learner of the request
(:mod:`quizapp.auth.identity`).
"""
