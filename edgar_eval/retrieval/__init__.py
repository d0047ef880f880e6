"""Search over chunk embeddings, always scoped to one company's filings."""
