"""edgar-eval: reproducible evaluation of RAG question answering over SEC EDGAR filings."""
