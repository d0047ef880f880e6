"""Rendering reports from tables, with the provenance of every table."""
