"""The four placement steps of an evaluation: their pages."""
