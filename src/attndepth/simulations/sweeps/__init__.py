"""Declarative sweeps: observables, specs, the SQLite store and where points run."""
