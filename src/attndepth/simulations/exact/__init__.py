"""The exact separation-rank engine: arithmetic over GF(p), grid evaluation, degree
blocks, certified ranks and the knee decided from them."""
