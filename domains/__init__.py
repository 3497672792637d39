"""Built-in domains: one folder each, found by scanning this package."""
