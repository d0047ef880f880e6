"""Imported by the multiprocess executor's fork server: builds the code location once, so every step process forked
from it finds the Definitions built and resolved (edgar_eval.definitions caches them per environment)."""

from edgar_eval.defs.executors import silence_dagster_notices

silence_dagster_notices()

from edgar_eval.definitions import warm  # noqa: E402  (after the filters: building the definitions warns)

warm()
