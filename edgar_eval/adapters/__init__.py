"""The outside world: files on disk, Parquet, the embedding model."""
