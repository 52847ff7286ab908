"""The capacity engine's core: pure Python and NumPy, no Django (see evaluations/capacity)."""
