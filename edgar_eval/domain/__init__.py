"""Values and ports shared by every layer. No I/O lives here."""
