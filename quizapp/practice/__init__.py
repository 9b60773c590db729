"""Practice that teaches: the endpoints of the attempt policy (tries before the solution) and of hints on
demand, and the input help each part shows; the rules themselves are :mod:`quizapp.study`. See
``docs/practice.md``."""
