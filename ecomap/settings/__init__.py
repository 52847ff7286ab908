"""Settings modules: base (from the environment), local (demo), test, production."""
