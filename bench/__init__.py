"""Benchmarks (not run by CI): ``python -m bench [--quick]`` writes bench/RESULTS.md."""
