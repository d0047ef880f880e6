"""The corpus domain: the filing documents (observed), their partitions and sensor, and the per-filing assets."""
