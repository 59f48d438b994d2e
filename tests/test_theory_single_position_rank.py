"""The one-position closed form: each checkable step of its proof confirms, and the checks
can fail (a wrong identity is caught)."""

import math

import pytest

from attndepth.theory import single_position_rank as proof
from attndepth.theory.single_position_rank import (
    confirm_single_position_proof,
    single_position_rank,
    walk_counts,
)


@pytest.mark.parametrize("width, depth", [(1, 2), (2, 2), (3, 2)])
def test_every_step_confirms(width, depth):
    steps = confirm_single_position_proof(width, depth)
    assert len(steps) == 7 and all(steps.values()), steps


@pytest.mark.slow
@pytest.mark.parametrize("width, depth", [(4, 2), (2, 3), (1, 3)])
def test_every_step_confirms_at_larger_sizes(width, depth):
    assert all(confirm_single_position_proof(width, depth).values())


def test_the_walk_counts_are_the_positive_ones_the_proof_needs():
    counts, primes = walk_counts(2)  # K = 4
    assert counts[(0, 0)] == 1 and counts[(2, 2)] > 0 and primes[(3, 1)] > 0
    assert sum(counts.values()) + sum(primes.values()) == 2**4  # every walk, once


def test_the_rank_is_the_binomial():
    assert single_position_rank(3, 2) == math.comb(4 + 3, 3) == 35
    assert single_position_rank(2, 5) == math.comb(121 + 2, 2)


def test_a_wrong_laplacian_is_caught(monkeypatch):
    real = proof._laplacian
    monkeypatch.setattr(proof, "_laplacian", lambda form, variables: 2 * real(form, variables))
    # __wrapped__: the proof itself, not the answer remembered before the patch
    steps = confirm_single_position_proof.__wrapped__(2, 2)
    assert not steps["4 harmonics: Δ(u^k h) = 2k(2k+2n+d-2) u^(k-1) h; T(h) harmonic, nonzero"]


def test_sizes_out_of_range_are_refused():
    with pytest.raises(ValueError, match="width 1 … 5"):
        confirm_single_position_proof(6, 2)


def test_non_integer_sizes_are_refused():
    with pytest.raises(ValueError, match="integers"):
        confirm_single_position_proof("a", 2)
