import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.rank.arithmetic.modular import (
    DEFAULT_PRIME,
    SECOND_PRIME,
    check_prime,
    lazy_inner_limit,
    matmul_mod,
)


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


# (a shape, b shape): lazy uint64 (k ≤ 4), float64 BLAS with b in limbs (2-D b, k ≤ 64),
# int64 limbs (batched b with k > 4, and 2-D b with k > 64)
STRATEGY_SHAPES = [((3, 2, 4), (3, 4, 2)), ((5, 9), (9, 9)), ((2, 64), (64, 3)),
                   ((3, 2, 9), (3, 9, 2)), ((2, 65), (65, 3)), ((2, 300), (300, 2))]


@pytest.mark.parametrize("prime", [DEFAULT_PRIME, SECOND_PRIME, 3])
@pytest.mark.parametrize(("a_shape", "b_shape"), STRATEGY_SHAPES)
def test_each_strategy_exact_at_worst_case_and_random_entries(a_shape, b_shape, prime):
    rng = np.random.default_rng(0)
    for a, b in [(np.full(a_shape, prime - 1), np.full(b_shape, prime - 1)),
                 (rng.integers(0, prime, a_shape), rng.integers(0, prime, b_shape))]:
        exact = np.vectorize(int)((a.astype(object) @ b.astype(object)) % prime)
        result = matmul_mod(a, b, prime)
        assert result.dtype == np.int64
        np.testing.assert_array_equal(result, exact)


def test_lazy_limit_is_the_largest_safe_inner_dimension():
    for prime in (DEFAULT_PRIME, SECOND_PRIME, 65521, 3):
        limit = lazy_inner_limit(prime)
        assert limit * (prime - 1) ** 2 < 2**64 <= (limit + 1) * (prime - 1) ** 2
    assert lazy_inner_limit(DEFAULT_PRIME) == 4


def test_matmul_mod_accepts_transposed_and_broadcast_views():
    p = DEFAULT_PRIME
    rng = np.random.default_rng(1)
    a = rng.integers(0, p, (4, 3, 3))
    expected = (a.astype(object) @ np.swapaxes(a, -1, -2).astype(object)) % p
    np.testing.assert_array_equal(matmul_mod(a, np.swapaxes(a, -1, -2), p),
                                  expected.astype(np.int64))
    v = np.broadcast_to(a[:1, :, :1], (4, 3, 1))
    np.testing.assert_array_equal(matmul_mod(a, v, p),
                                  ((a.astype(object) @ v.astype(object)) % p).astype(np.int64))


def test_matmul_mod_broadcasts():
    p = 101
    a = np.arange(24).reshape(2, 1, 3, 4) % p
    b = np.arange(12).reshape(3, 4, 1) % p
    assert matmul_mod(a, b, p).shape == (2, 3, 3, 1)


@pytest.mark.parametrize("bad", [4, 1, 2, 2**31 + 11, -7, 2.0, "7", True])
def test_check_prime_rejects(bad):
    with pytest.raises(ValueError, match="prime"):
        check_prime(bad)
