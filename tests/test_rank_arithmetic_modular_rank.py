import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.rank.arithmetic import modular_rank
from attndepth.rank.arithmetic.modular_rank import (
    BASE_COLUMNS,
    EXACT_LIMIT,
    MAX_PRIME,
    centred_bound,
    inner_limit,
    limb_bits,
    matmul_residues,
    rank_mod,
    rank_mod_gemm,
)

# one limb (small and 2^21-sized primes) and two limbs (just below 2^26)
PRIMES = [7, 101, 2_097_143, 67_108_859]


def low_rank(rng, rows, cols, rank, prime):
    """A rows × cols matrix of rank ≤ ``rank`` over GF(prime), exact in Python integers."""
    left = rng.integers(0, prime, (rows, rank)).astype(object)
    right = rng.integers(0, prime, (rank, cols)).astype(object)
    return ((left @ right) % prime).astype(np.int64)


def flint_rank(matrix, prime):
    return flint.nmod_mat(matrix.tolist(), prime).rank()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3 * BASE_COLUMNS), st.integers(1, 3 * BASE_COLUMNS),
       st.integers(0, 3 * BASE_COLUMNS), st.sampled_from(PRIMES), st.integers(0, 2**32),
       st.booleans())
def test_rank_equals_flint_on_low_rank_matrices(rows, cols, rank, prime, seed, zero_columns):
    rng = np.random.default_rng(seed)
    matrix = low_rank(rng, rows, cols, max(rank, 1), prime) if rank else \
        np.zeros((rows, cols), dtype=np.int64)
    if zero_columns:
        matrix[:, rng.integers(0, cols, cols // 3)] = 0
    assert rank_mod_gemm(matrix, prime) == flint_rank(matrix, prime)


@pytest.mark.parametrize("prime", PRIMES[2:])
def test_deep_recursion_with_many_delayed_updates(prime):
    """Sizes where every level of the recursion, the limbs and the panel's delayed
    reductions all act; rank 200 of 300 (a wrong sum raises the rank)."""
    rng = np.random.default_rng(5)
    matrix = low_rank(rng, 300, 280, 200, prime)
    assert rank_mod_gemm(matrix, prime) == flint_rank(matrix, prime) == 200


def test_worst_case_entries_stay_exact():
    prime = PRIMES[2]
    matrix = np.full((120, 120), prime // 2, dtype=np.int64)
    matrix[np.arange(120), np.arange(120)] = prime // 2 + 1  # full rank, all entries ≈ ±p/2
    assert rank_mod_gemm(matrix, prime) == flint_rank(matrix, prime)


def test_reduces_any_integers_first():
    assert rank_mod_gemm(np.array([[8, 1], [1, -6]]), 7) == 1
    big = np.array([[2**62, 1], [1, 1]], dtype=np.int64)  # 2^62 ≡ 1 (mod 3)
    assert rank_mod_gemm(big, 3) == 1


def test_does_not_modify_its_input_and_handles_empty_and_wide():
    rng = np.random.default_rng(1)
    matrix = low_rank(rng, 20, 90, 7, 101)
    copy = matrix.copy()
    assert rank_mod_gemm(matrix, 101) == 7
    np.testing.assert_array_equal(matrix, copy)
    assert rank_mod_gemm(np.zeros((0, 4), dtype=np.int64), 101) == 0


@pytest.mark.parametrize("prime", PRIMES)
def test_exactness_constants_follow_the_proof(prime):
    bound = centred_bound(prime)
    bits = limb_bits(prime)
    factor = bound if bits == 0 else 2 ** (bits - 1) + 1
    assert inner_limit(prime) * bound * factor + bound <= EXACT_LIMIT
    assert inner_limit(prime) >= 1024
    if bits:  # the two reduced halves recombine exactly
        assert 2 * bound**2 <= EXACT_LIMIT


def test_bad_input_is_refused_with_clear_errors():
    with pytest.raises(ValueError, match="2\\^26"):
        rank_mod_gemm(np.eye(3, dtype=np.int64), 2_147_483_647)
    assert MAX_PRIME == 2**26
    with pytest.raises(ValueError, match="prime"):
        rank_mod_gemm(np.eye(3, dtype=np.int64), 8)
    with pytest.raises(TypeError, match="integers"):
        rank_mod_gemm(np.eye(3), 7)
    with pytest.raises(ValueError, match="two-dimensional"):
        rank_mod_gemm(np.ones(3, dtype=np.int64), 7)
    with pytest.raises(ValueError, match="shapes"):
        matmul_residues(np.ones((2, 3)), np.ones((2, 3)), 101)


def test_a_wrong_elimination_is_caught(monkeypatch):
    """The oracle test can fail: with pivot inverses off by one the eliminations stop
    cancelling and a rank-200 matrix reads as full rank."""
    monkeypatch.setattr(modular_rank, "_centre", lambda value, prime: value + 1)
    rng = np.random.default_rng(5)
    matrix = low_rank(rng, 300, 280, 200, PRIMES[2])
    assert rank_mod_gemm(matrix, PRIMES[2]) != flint_rank(matrix, PRIMES[2])


@pytest.mark.parametrize("prime", [PRIMES[1], PRIMES[3]])
def test_panels_whose_top_rows_are_dependent_take_the_column_path(prime):
    """Zero and repeated leading rows make every panel's top block singular, so the
    column-by-column elimination pivots further down; the rank still equals FLINT's."""
    rng = np.random.default_rng(2)
    matrix = low_rank(rng, 260, 240, 180, prime)
    matrix[:40] = 0
    matrix[40:80] = matrix[80:120]
    assert rank_mod_gemm(matrix, prime) == flint_rank(matrix, prime)


def test_a_wrong_panel_inverse_is_caught(monkeypatch):
    """The fast panel path can fail: an inverse off by one in one entry leaves the
    Schur complements nonzero and the rank-200 matrix reads higher."""
    def off_by_one(block, prime):
        inverse = real(block, prime)
        if inverse is not None:
            inverse[0, 0] += 1
        return inverse

    real = modular_rank._inverse_mod
    monkeypatch.setattr(modular_rank, "_inverse_mod", off_by_one)
    matrix = low_rank(np.random.default_rng(5), 300, 280, 200, PRIMES[2])
    assert rank_mod_gemm(matrix, PRIMES[2]) > flint_rank(matrix, PRIMES[2])


def test_inverse_mod_is_centred_and_refuses_singular_blocks():
    prime = PRIMES[2]
    block = np.array([[2.0, 1.0], [1.0, 1.0]])
    inverse = modular_rank._inverse_mod(block, prime)
    np.testing.assert_array_equal(inverse, [[1, -1], [-1, 2]])
    assert modular_rank._inverse_mod(np.array([[2.0, 4.0], [1.0, 2.0]]), prime) is None


def test_rank_mod_small_cases():
    assert rank_mod(np.array([[1, 2], [2, 4]]), 7) == 1
    assert rank_mod(np.array([[1, 2], [3, 4]]), 7) == 2
    assert rank_mod(np.array([[1, 0], [0, 5]]), 5) == 1  # 5 = 0 in GF(5)
    assert rank_mod(np.zeros((0, 3), dtype=np.int64), 7) == 0


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_rank_mod_threads_give_the_same_rank_and_restore_flint(threads):
    rng = np.random.default_rng(2)
    low_rank = (rng.integers(0, 50, (60, 7)) @ rng.integers(0, 50, (7, 45))) % 101
    before = flint.ctx.threads
    assert rank_mod(low_rank, 101, threads=threads) == 7
    assert flint.ctx.threads == before


def test_rank_mod_reduces_entries_outside_the_residue_range():
    assert rank_mod(np.array([[8, 1], [1, -6]]), 7) == 1  # [[1, 1], [1, 1]] mod 7


@pytest.mark.parametrize("bad", [0, -2, "two", 1.5])
def test_rank_mod_rejects_bad_thread_counts(bad):
    with pytest.raises(ValueError, match="threads"):
        rank_mod(np.eye(3, dtype=np.int64), 7, threads=bad)
