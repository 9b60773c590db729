"""Practice that teaches: the attempt policy (tries before the solution), hints on demand and their
credit, and the input help each part shows. See ``docs/practice.md``."""
