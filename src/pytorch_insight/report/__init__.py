"""The report: the JSON model built from the ranked items, and its writers."""
