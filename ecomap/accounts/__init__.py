"""Accounts: personal API tokens, stored hashed, with an expiry and a last-used date."""
