"""Pure parsing of inline-XBRL EDGAR documents, and the demo corpus generator."""
