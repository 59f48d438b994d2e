import itertools
import math

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attndepth
from attndepth.rank.arithmetic.modular_rank import rank_mod
from attndepth.rank.degree_blocks import evaluate_blocks
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured
from attndepth.rank.grids import SeparationRankConfig
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.rank.torus_blocks import (
    MAX_ORDER,
    class_bounds,
    commutant_weights,
    coordinate_weights,
    estimated_seconds,
    evaluate_torus_blocks,
    make_torus,
    measure_torus_ranks,
    torus_prime,
)
from attndepth.theory.separation_rank import degree_block_bounds


def config_and_bounds(width, depth, p_size, q_size):
    config = SeparationRankConfig(width=width, depth=depth, tokens=p_size + q_size,
                                  partition=f"sizes={p_size}/{q_size}")
    return config, [b.bound for b in degree_block_bounds(width, depth, p_size, q_size)]


@pytest.mark.parametrize("order", [1, 4, 5, 6, 7, 12])
def test_torus_prime_is_the_largest_with_the_roots_it_needs(order):
    prime, step = torus_prime(order), math.lcm(4, order)
    assert flint.fmpz(prime).is_prime() and prime % step == 1 and prime < 2**26
    assert not any(flint.fmpz(q).is_prime() for q in range(prime + step, 2**26, step))


@pytest.mark.parametrize("width, order", [(2, 4), (3, 6), (4, 5), (5, 6)])
def test_rotations_are_an_orthogonal_group_commuting_with_the_weights(width, order):
    prime = torus_prime(order)
    torus = make_torus(width, order, prime)
    weights, _ = commutant_weights(width, 2, 3, prime)
    R = torus.rotations.astype(object)
    index = {c: k for k, c in enumerate(torus.classes)}
    for k, s in enumerate(torus.classes):
        np.testing.assert_array_equal(R[k].T @ R[k] % prime, np.eye(width, dtype=object))
        for matrix in (weights.bilinear[0, 0, 0], weights.value_output[0, 0, 0]):
            A = matrix.astype(object)
            np.testing.assert_array_equal(R[k] @ A % prime, A @ R[k] % prime)
        t = torus.classes[-1]
        product = tuple((a + b) % order for a, b in zip(s, t, strict=True))
        np.testing.assert_array_equal(R[k] @ R[len(R) - 1] % prime, R[index[product]])


def test_the_inversion_inverts_the_characters():
    order, width = 5, 4
    prime = torus_prime(order)
    torus = make_torus(width, order, prime)
    zeta_of = {}  # ζ^{s·c} recovered from the rotations' eigenvalue on z_0 = x_0 + ι x_1
    for k, s in enumerate(torus.classes):
        R = torus.rotations[k]
        zeta_of[s] = [(int(R[2 * j, 2 * j]) + torus.iota * int(R[2 * j + 1, 2 * j])) % prime
                      for j in range(width // 2)]
    characters = np.array([[math.prod(pow(z, c_j, prime) for z, c_j in
                                      zip(zeta_of[s], c, strict=True)) % prime
                            for c in torus.classes] for s in torus.classes], dtype=object)
    identity = torus.inversion.astype(object) @ characters % prime
    np.testing.assert_array_equal(identity, np.eye(torus.size, dtype=object))


@settings(max_examples=12, deadline=None)
@given(width=st.integers(2, 5), depth=st.integers(1, 2), seed=st.integers(0, 2**32),
       power=st.integers(0, 5))
def test_commuting_weights_make_f_a_torus_eigenfunction(width, depth, seed, power):
    """f(R x_P, R x_Q) = ζ^{χ·s} f(x_P, x_Q): χ = 0 for odd d, e_0 for even d."""
    order = 6
    prime = torus_prime(order)
    torus = make_torus(width, order, prime)
    weights, coordinate = commutant_weights(width, depth, seed, prime)
    split = make_partition("sizes=2/2", 4)
    rng = np.random.default_rng(seed)
    XP, XQ = rng.integers(0, prime, (3, 2, width)), rng.integers(0, prime, (3, 2, width))
    k = torus.classes.index((power,) + (0,) * (width // 2 - 1))
    R = torus.rotations[k]
    plain = evaluate_structured(weights, split, XP, XQ, coordinate)
    rotated = evaluate_structured(weights, split, XP @ R.T % prime, XQ @ R.T % prime,
                                  coordinate)
    eigenvalue = 1 if width % 2 else (int(R[0, 0]) + torus.iota * int(R[1, 0])) % prime
    np.testing.assert_array_equal(rotated, plain * eigenvalue % prime)


def test_the_classes_add_up_to_the_degree_block():
    """Σ_c F_{a,c} = F_a: the inversion's column of the identity rotation sums to one."""
    order, prime = 4, torus_prime(4)
    config, bounds = config_and_bounds(4, 2, 2, 2)
    weights, coordinate = commutant_weights(4, 2, 0, prime)
    torus = make_torus(4, order, prime)
    rng = np.random.default_rng(1)
    XP, XQ = rng.integers(0, prime, (9, 2, 4)), rng.integers(0, prime, (9, 2, 4))
    classes = evaluate_torus_blocks(weights, config.split, XP, XQ, coordinate, torus,
                                    {a: [9] * torus.size for a in range(5)})
    blocks = evaluate_blocks(weights, config.split, XP, XQ, coordinate,
                             dict.fromkeys(range(5), 9))
    for a in range(5):
        total = np.sum([block.astype(np.int64) for block in classes[a]], axis=0) % prime
        np.testing.assert_array_equal(total, blocks[a].astype(np.int64) % prime)


@pytest.mark.parametrize("width, depth, p_size, q_size, order",
                         [(2, 2, 2, 2, 4), (3, 2, 2, 2, 4), (4, 2, 3, 3, 6), (5, 2, 2, 3, 6),
                          (2, 3, 2, 2, 5)])
def test_torus_ranks_equal_the_whole_blocks_at_the_same_weights(width, depth, p_size,
                                                                q_size, order):
    """The proof's steps 3–4: rank F_a = Σ_c rank F_{a,c} at the commuting weights,
    measured against the dense degree blocks; and never above the generic rank (atlas)."""
    config, bounds = config_and_bounds(width, depth, p_size, q_size)
    measured = measure_torus_ranks(config, bounds, seed=2, order=order)
    prime = measured.prime
    weights, coordinate = commutant_weights(width, depth, 2, prime)
    rng = np.random.default_rng(5)
    points = max(bounds) + 8
    XP = rng.integers(0, prime, (points, p_size, width))
    XQ = rng.integers(0, prime, (points, q_size, width))
    blocks = evaluate_blocks(weights, config.split, XP, XQ, coordinate,
                             {a: b + 8 for a, b in enumerate(bounds)})
    dense = [rank_mod(blocks[a].astype(np.int64) % prime, prime) for a in range(len(bounds))]
    assert [block.rank for block in measured.blocks] == dense
    generic = attndepth.atlas().find(width=width, depth=depth, heads=1, residual=0,
                                     p_size=p_size, q_size=q_size)
    assert measured.rank <= generic.rank


def test_without_commuting_weights_the_split_overcounts():
    """The commutant is what makes the split valid: at generic weights the classes' ranks
    add up to more than the rank of the block itself."""
    order, prime = 4, torus_prime(4)
    config, bounds = config_and_bounds(3, 2, 2, 2)
    weights = draw_linear_attention_weights(3, 2, 1, 0, 1, 0, prime=prime)
    torus = make_torus(3, order, prime)
    rng = np.random.default_rng(0)
    XP, XQ = rng.integers(0, prime, (40, 2, 3)), rng.integers(0, prime, (40, 2, 3))
    sizes = dict.fromkeys(range(5), 40)
    classes = evaluate_torus_blocks(weights, config.split, XP, XQ, 0, torus,
                                    {a: [40] * torus.size for a in sizes})
    blocks = evaluate_blocks(weights, config.split, XP, XQ, 0, sizes)
    split_total = sum(rank_mod(classes[a][c].astype(np.int64) % prime, prime)
                      for a in sizes for c in range(torus.size))
    whole = sum(rank_mod(blocks[a].astype(np.int64) % prime, prime) for a in sizes)
    assert whole == 49 and split_total > whole


def test_a_short_torus_rank_is_a_lower_bound_not_a_saturated_rank():
    """d = 3, L = 3, |P| = |Q| = 3 at seed 0: the commuting weights reach 3,098 of the
    generic 3,102 (block a = 7: 788 of 792); the certificate says lower bound."""
    config, bounds = config_and_bounds(3, 3, 3, 3)
    measured = measure_torus_ranks(config, bounds, seed=0, order=4, max_points=400)
    certificate = measured.certificate(config)
    assert measured.rank == 3098 and certificate.reason == "lower-bound"
    assert not certificate.saturated and certificate.failure_probability is None
    assert measured.blocks[7].reason == "weights" and measured.blocks[7].rank == 788


def test_a_capped_class_is_reported_as_capped():
    config, bounds = config_and_bounds(3, 2, 2, 2)
    measured = measure_torus_ranks(config, bounds, seed=0, order=4, max_points=4)
    assert {block.reason for block in measured.blocks} >= {"max-points"}
    assert measured.rank < 49 and measured.certificate(config).method == "torus"


def test_the_estimate_grows_with_classes_and_grid():
    assert estimated_seconds(36, [10, 1000]) == pytest.approx(4 * estimated_seconds(36, [500, 2]))
    assert estimated_seconds(72, [100]) == 2 * estimated_seconds(36, [100])


@pytest.mark.parametrize("keywords, message", [
    ({"order": MAX_ORDER + 1}, "order"),
    ({"order": 6, "prime": 67_108_859}, "p = 1 mod 12"),
    ({"max_points": 1}, "max_points"),
    ({"margin": 0}, "margin"),
    ({"max_seconds": 1e-9}, "would take"),
    ({"max_seconds": True}, "max_seconds"),
    ({"progress": "yes"}, "progress"),
])
def test_bad_options_are_refused(keywords, message):
    config, bounds = config_and_bounds(3, 2, 2, 2)
    with pytest.raises((ValueError, TypeError), match=message):
        measure_torus_ranks(config, bounds, **keywords)


@pytest.mark.parametrize("config, bounds, message", [
    (SeparationRankConfig(width=3, depth=2, heads=3, tokens=4, partition="sizes=2/2"),
     [1] * 5, "one head"),
    (SeparationRankConfig(width=3, depth=2, residual=1, tokens=4, partition="sizes=2/2"),
     [1] * 5, "residual = 0"),
    (SeparationRankConfig(width=3, depth=2, tokens=4, partition="sizes=2/2"), [1] * 4,
     "K \\+ 1 = 5"),
    (SeparationRankConfig(width=3, depth=2, tokens=4, partition="sizes=2/2"), "11111",
     "K \\+ 1 = 5"),
    ((3, 2), [1] * 5, "SeparationRankConfig"),
])
def test_bad_networks_are_refused(config, bounds, message):
    with pytest.raises((ValueError, TypeError), match=message):
        measure_torus_ranks(config, bounds)


def test_too_many_classes_are_refused():
    with pytest.raises(ValueError, match="classes"):
        make_torus(12, 6, torus_prime(6))


@pytest.mark.parametrize("width, depth, order", [(2, 2, 4), (3, 2, 5), (4, 2, 4), (5, 2, 3)])
def test_class_bounds_count_the_monomials_of_each_class(width, depth, order):
    """The dynamic programme against enumerating every monomial and its weight."""
    torus = make_torus(width, order, torus_prime(order))
    degree = (3 ** depth - 1) // 2
    coordinates = coordinate_weights(width)
    entries = [tuple(a + b for a, b in zip(coordinates[k], coordinates[l], strict=True))
               for k in range(width) for l in range(k, width)]

    def count(b, target):
        return sum(tuple(sum(col) % order for col in zip(*chosen, strict=True))
                   == tuple(t % order for t in target)
                   for chosen in itertools.combinations_with_replacement(entries, b)) \
            if b else int(all(t % order == 0 for t in target))

    chi = coordinates[0] if width % 2 == 0 else (0,) * (width // 2)
    bounds = class_bounds(width, depth, torus)
    for a in range(degree + 1):
        for k, c in enumerate(torus.classes):
            q_side = count(a, [x - y for x, y in zip(chi, c, strict=True)])
            p_side = sum(count(degree - a, [x - y for x, y in zip(c, w, strict=True)])
                         for w in coordinates)
            assert bounds[a][k] == min(q_side, p_side)


def test_the_estimate_grows_like_the_fourth_power_of_the_width_beyond_five():
    assert estimated_seconds(36, [100], 3) == estimated_seconds(36, [100], 5)
    assert estimated_seconds(36, [100], 6) == pytest.approx(
        (6 / 5) ** 4 * estimated_seconds(36, [100], 5))


@pytest.mark.parametrize("call, message", [
    (lambda: class_bounds(3, 0, make_torus(3, 4, torus_prime(4))), "depth"),
    (lambda: class_bounds(4, 2, make_torus(3, 4, torus_prime(4))), "width 3"),
    (lambda: class_bounds(3, 2, "torus"), "Torus"),
    (lambda: coordinate_weights(0), "width"),
])
def test_class_counts_refuse_bad_input(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
