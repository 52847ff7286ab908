"""Pure-Python engines of EcoMap: no Django imports, so tasks, views and commands share them."""
