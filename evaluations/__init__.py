"""Evaluations: teams, the four-step placement workflow, decisions, reviews and their audit."""
