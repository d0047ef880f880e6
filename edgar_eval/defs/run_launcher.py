"""Kept so that an instance whose dagster.yaml names `LocalRunLauncher` (what earlier versions wrote, then edited by
hand, which `edgar-eval` leaves as it is) still loads: it is Dagster's default launcher now. Runs whose process was
killed are ended by the sensor `orphaned_runs` (defs/orphaned_runs.py), through public API only."""

from dagster import DefaultRunLauncher as LocalRunLauncher

__all__ = ["LocalRunLauncher"]
