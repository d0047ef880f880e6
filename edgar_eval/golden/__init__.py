"""Golden questions with known answers and known locations."""
