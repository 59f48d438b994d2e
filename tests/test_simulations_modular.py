import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulations.modular import DEFAULT_PRIME, SECOND_PRIME, check_prime, matmul_mod, rank_mod


@given(st.integers(1, 5), st.integers(1, 40), st.integers(1, 5), st.integers(0, 2**32),
       st.sampled_from([DEFAULT_PRIME, SECOND_PRIME, 101]))
def test_matmul_mod_equals_exact_integer_product(m, k, n, seed, prime):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, prime, (m, k))
    b = rng.integers(0, prime, (k, n))
    exact = (a.astype(object) @ b.astype(object)) % prime
    np.testing.assert_array_equal(matmul_mod(a, b, prime), exact.astype(np.int64))


def test_matmul_mod_worst_case_entries_do_not_overflow():
    p = DEFAULT_PRIME
    a = np.full((2, 4096), p - 1)
    b = np.full((4096, 2), p - 1)
    assert matmul_mod(a, b, p)[0, 0] == (4096 * (p - 1) ** 2) % p


def test_matmul_mod_broadcasts():
    p = 101
    a = np.arange(24).reshape(2, 1, 3, 4) % p
    b = np.arange(12).reshape(3, 4, 1) % p
    assert matmul_mod(a, b, p).shape == (2, 3, 3, 1)


@pytest.mark.parametrize("bad", [4, 1, 2, 2**31 + 11, -7, 2.0, "7", True])
def test_check_prime_rejects(bad):
    with pytest.raises(ValueError, match="prime"):
        check_prime(bad)


def test_rank_mod_small_cases():
    assert rank_mod(np.array([[1, 2], [2, 4]]), 7) == 1
    assert rank_mod(np.array([[1, 2], [3, 4]]), 7) == 2
    assert rank_mod(np.array([[1, 0], [0, 5]]), 5) == 1  # 5 = 0 in GF(5)
    assert rank_mod(np.zeros((0, 3), dtype=np.int64), 7) == 0
