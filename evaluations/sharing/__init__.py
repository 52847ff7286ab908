"""Read-only share links: a decision (its page, PDF report and ADR) shown to someone outside
the team without an account; signed by a random key stored hashed, expiring, revocable, logged."""
