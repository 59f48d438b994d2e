"""The claims framework: the registry, families, the counterexample search and
the report."""
