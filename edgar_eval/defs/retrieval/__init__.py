"""The retrieval domain: the search index, what each retriever returns, its noise, its figures and the index's check."""
