import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.rank import degree_blocks
from attndepth.rank.degree_blocks import (
    BLOCK_PRIME,
    BoundViolation,
    evaluate_blocks,
    measure_block_ranks,
    separating_scales,
)
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured
from attndepth.rank.grids import SeparationRankConfig, certified_rank
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.simulations.testing import partition_specs
from attndepth.theory.separation_rank import degree_block_bounds, separation_rank_bounds


def block_bounds(config):
    split = config.split
    return [b.bound for b in degree_block_bounds(config.width, config.depth,
                                                 len(split.p_positions),
                                                 len(split.q_positions))]


@pytest.mark.parametrize("degree", [0, 1, 4, 13, 121])
def test_separating_scales_invert_the_vandermonde_matrix(degree):
    prime = BLOCK_PRIME
    scales, inverse = separating_scales(degree, prime)
    squares = [int(t) ** 2 % prime for t in scales]
    assert len(set(squares)) == degree + 1
    V = np.array([[pow(s, a, prime) for a in range(degree + 1)] for s in squares],
                 dtype=object)
    product = (inverse.astype(object) @ V) % prime
    np.testing.assert_array_equal(product, np.eye(degree + 1, dtype=object))


def test_separating_scales_need_a_large_enough_prime():
    with pytest.raises(ValueError, match="prime"):
        separating_scales(13, 23)


def test_the_blocks_add_up_to_f_at_every_scale():
    """Σ_a s^a F_a = f(x_P, t·x_Q) at a scale t the separation did not use (t = 40)."""
    prime, tokens = BLOCK_PRIME, 4
    weights = draw_linear_attention_weights(2, 2, 1, 0, 1, 3, prime=prime)
    split = make_partition("balanced", tokens)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, prime, (7, 2, 2))
    XQ = rng.integers(0, prime, (7, 2, 2))
    blocks = evaluate_blocks(weights, split, XP, XQ, 0, dict.fromkeys(range(5), 7))
    t = 40
    direct = evaluate_structured(weights, split, XP, XQ * t % prime, 0).astype(object)
    total = sum(blocks[a].astype(np.int64).astype(object) * pow(t * t, a, prime)
                for a in range(5)) % prime
    np.testing.assert_array_equal(total, direct)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 2), partition_specs(4), st.integers(0, 9))
def test_blocks_equal_the_whole_matrix(width, depth, tokens_spec, seed):
    """The oracle: Σ_a rank F_a = rank F (both certified) on every configuration both reach."""
    tokens, spec = tokens_spec
    config = SeparationRankConfig(width=width, depth=depth, tokens=tokens, partition=spec)
    split = config.split
    best = separation_rank_bounds(width, depth, len(split.p_positions),
                                  len(split.q_positions)).best
    blocks = measure_block_ranks(config, block_bounds(config), seed)
    whole = certified_rank(config, seed, best)
    assert blocks.rank == whole.rank
    assert blocks.reason != "max-points"


def test_deeper_blocks_equal_the_whole_matrix():
    config = SeparationRankConfig(width=2, depth=3, tokens=3)
    blocks = measure_block_ranks(config, block_bounds(config), 0)
    whole = certified_rank(config, 0, separation_rank_bounds(2, 3, 2, 1).best)
    assert blocks.rank == whole.rank and len(blocks.blocks) == 14


def test_a_wrong_separation_is_caught(monkeypatch):
    """The oracle can fail: with the scales' inverse Vandermonde rows shuffled each
    'block' holds another degree's part, whose rank exceeds this block's proved bound."""
    original = degree_blocks.separating_scales

    def shuffled(degree, prime):
        scales, inverse = original(degree, prime)
        return scales, inverse[::-1].copy()

    monkeypatch.setattr(degree_blocks, "separating_scales", shuffled)
    config = SeparationRankConfig(width=2, depth=2, tokens=4)
    with pytest.raises(BoundViolation, match="exceeds its proved bound"):
        measure_block_ranks(config, block_bounds(config), 0)


def test_blocks_kept_in_files_do_not_change_the_ranks(monkeypatch):
    config = SeparationRankConfig(width=2, depth=3, tokens=4)
    in_memory = measure_block_ranks(config, block_bounds(config), 1)
    monkeypatch.setattr(degree_blocks, "BATCH_BYTES", 6000)
    monkeypatch.setattr(degree_blocks, "CHUNK_ENTRIES", 300)
    sizes = [b + 8 for b in block_bounds(config)]
    assert len(degree_blocks._resident_blocks(sizes)) < len(sizes) - 5  # most in files
    in_files = measure_block_ranks(config, block_bounds(config), 1)
    assert [b.rank for b in in_memory.blocks] == [b.rank for b in in_files.blocks]


def test_blocks_that_would_not_fit_on_disk_are_refused_up_front(monkeypatch, tmp_path):
    import collections

    config = SeparationRankConfig(width=2, depth=3, tokens=4)
    monkeypatch.setattr(degree_blocks, "BATCH_BYTES", 6000)
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(degree_blocks.shutil, "disk_usage", lambda where: usage(1, 1, 10**6))
    with pytest.raises(ValueError, match=r"need 0\.0 GiB of files in .*0\.0 GiB free"):
        measure_block_ranks(config, block_bounds(config), 1, checkpoint=tmp_path / "c.npz")
    assert not list(tmp_path.iterdir())  # refused before anything is written


@given(st.lists(st.integers(0, 20_000), min_size=1, max_size=42).filter(any))
def test_the_blocks_in_memory_are_the_largest_within_the_memory_budget(sizes):
    resident = degree_blocks._resident_blocks(sizes)
    order = sorted((a for a, n in enumerate(sizes) if n), key=lambda a: -sizes[a])
    assert resident == order[:len(resident)] and resident  # a prefix, the largest always
    peak = 4 * sum(sizes[a] ** 2 for a in resident) + 8 * sizes[resident[0]] ** 2
    assert len(resident) == 1 or peak <= degree_blocks.BATCH_BYTES
    if len(resident) < len(order):  # the next one would not have fitted
        nxt = order[len(resident)]
        assert peak + 4 * sizes[nxt] ** 2 > degree_blocks.BATCH_BYTES


def test_every_block_of_the_atlas_largest_in_memory_class_stays_in_memory():
    # d = 4, L = 3, |P| = 5, |Q| = 4: 14 blocks up to 11,448², 1.85 GiB at the peak
    sizes = [min(b + 8, 16_384) for b in block_bounds(SeparationRankConfig(
        width=4, depth=3, tokens=9, partition="sizes=5/4"))]
    assert max(sizes) == 11_448 and len(degree_blocks._resident_blocks(sizes)) == 14


def test_certificate_reasons_and_probabilities():
    config = SeparationRankConfig(width=3, depth=3, tokens=3)  # |P| = 2, |Q| = 1: four short blocks
    measured = measure_block_ranks(config, block_bounds(config), 0)
    reasons = {block.reason for block in measured.blocks}
    assert reasons == {"upper-bound", "margin"} and measured.reason == "margin"
    assert 0 < measured.failure_probability < 1e-3
    certificate = measured.certificate(config)
    assert certificate.method == "blocks" and certificate.rank == measured.rank
    assert len(certificate.blocks) == 14
    capped = measure_block_ranks(config, block_bounds(config), 0, max_points=40)
    assert capped.reason == "max-points" and capped.failure_probability is None


def test_bad_input_is_refused():
    config = SeparationRankConfig(width=2, depth=2, tokens=3)
    with pytest.raises(ValueError, match="residual"):
        measure_block_ranks(SeparationRankConfig(width=2, depth=2, tokens=3, residual=1), [1] * 5)
    with pytest.raises(ValueError, match="K \\+ 1 = 5"):
        measure_block_ranks(config, [1, 2, 3])
    with pytest.raises(ValueError, match="bound"):
        measure_block_ranks(config, [1, 0, 3, 4, 5])
    with pytest.raises(ValueError, match="max_points"):
        measure_block_ranks(config, block_bounds(config), max_points=10**6)
    with pytest.raises(TypeError, match="config"):
        measure_block_ranks("d=2", [1])


def test_the_block_method_refuses_hours_of_work_up_front_and_names_the_way_out():
    import math

    import pytest

    from attndepth.rank.budget import MAX_BLOCK_SECONDS
    from attndepth.rank.degree_blocks import estimated_seconds, measure_block_ranks
    from attndepth.rank.grids import SeparationRankConfig
    from attndepth.rank.methods import block_bounds_for

    huge = SeparationRankConfig(width=6, depth=4, tokens=8)  # 41 blocks, 32 capped at 16,384²
    bounds = block_bounds_for(huge)
    with pytest.raises(ValueError, match=r"about 2\.0 h.*--max-points.*--max-seconds"):
        measure_block_ranks(huge, bounds)
    # the reach of the README stays inside the limit (measured 538 s, estimated 777 s)
    reach = SeparationRankConfig(width=4, depth=3, tokens=8)
    assert estimated_seconds([min(b + 8, 16384) for b in block_bounds_for(reach)]) \
        < MAX_BLOCK_SECONDS
    with pytest.raises(ValueError, match="max_seconds must be a number of seconds > 0"):
        measure_block_ranks(reach, block_bounds_for(reach), max_seconds=0)
    small = SeparationRankConfig(width=2, depth=2, tokens=4)
    assert measure_block_ranks(small, block_bounds_for(small), max_seconds=math.inf).rank > 0
