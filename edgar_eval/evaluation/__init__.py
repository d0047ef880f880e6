"""Judging outcomes, cross-fitted gates, the six arms, retrieval metrics."""
