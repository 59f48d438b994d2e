"""Arithmetic over GF(p): products without overflow, and ranks (python-flint and a
float64 GEMM LU)."""
