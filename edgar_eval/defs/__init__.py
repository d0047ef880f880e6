"""Dagster definitions: thin assets that call the layers below, grouped by stage."""
