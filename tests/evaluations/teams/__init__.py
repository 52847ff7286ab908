"""Team management tests."""
