"""Where the quiz keeps its data: the SQLite/PostgreSQL engine of a URL and SQLite's connection settings
(``db_engine``, ``sqlite_pragmas``), one session per request or command (``db``, ``cli_schema``), the writer turn
that SQLite's processes take (``write_turn``), attempts committed together (``group_commit``, ``sqlite_rows``), the
models (``models``) and the Alembic runner over ``migrations/`` (``migrate``)."""
