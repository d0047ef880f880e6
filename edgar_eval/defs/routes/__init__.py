"""The routes domain: how each question exits (answer, no_answer, clarify, deny, review) and the release fixture."""
