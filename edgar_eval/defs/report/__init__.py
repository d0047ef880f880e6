"""The report domain: the Markdown and HTML report, its receipts, and the check that every table names its source."""
