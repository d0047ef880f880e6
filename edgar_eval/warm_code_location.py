"""Imported by the multiprocess executor's fork server, and by each Celery worker (`-i`), before they fork: loads once
what every step process would otherwise load for itself (edgar_eval.definitions.warm)."""

from edgar_eval.defs.executors import silence_dagster_notices

silence_dagster_notices()

from edgar_eval.definitions import warm  # noqa: E402  (after the filters: building the definitions warns)

warm()
