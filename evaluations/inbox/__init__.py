"""A signed-in user's home page, review inbox and search across catalog and evaluations."""
