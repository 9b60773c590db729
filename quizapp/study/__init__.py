"""What the service knows of a learner's study of a question, below the attempt service that stores attempts.

* :mod:`.policy`: the attempt policy (tries before the solution, hints counted since the last reveal);
* :mod:`.credit`: what a part still earns after hints;
* :mod:`.summary`: the policy's history of one learner on one question, kept as one stored row;
* :mod:`.review`: spaced review (FSRS): rating an attempt, planning and storing its card, the review queue;
* :mod:`.clock` and :mod:`.grades`: the study clock and an attempt's grade.

Plain functions over a SQLAlchemy session, no Flask: the attempt service
(:mod:`quizapp.services.attempts`), the practice and learner-memory blueprints and the account service call
them; they import nothing from those (``tests/service/test_layers_service.py``).
"""
