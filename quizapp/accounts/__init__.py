"""Optional learner accounts: email + password (the author accounts' scrypt scheme), the signed-in learner
through Flask-Login, personal API tokens (the author token machinery: sha256 at rest, shown once,
revocable), export and deletion. Practising needs no account: the cookie learner of
:mod:`quizapp.learners` stays, and signing up or in moves its attempts and review cards to the account.
"""
