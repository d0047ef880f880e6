"""The reference system under test: period guard, gates, the extractive reader."""
