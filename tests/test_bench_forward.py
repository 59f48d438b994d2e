"""The bench's batched seed sample: the same numbers as seed by seed."""

from bench.forward import seeds_in_one_batch


def test_a_seed_sample_in_one_batch_gives_each_seeds_states_bit_for_bit():
    row = seeds_in_one_batch(tokens=4, width=8, depth=3, stacks=2, seeds=3)
    assert row["identical"] is True and row["seeds × stacks"] == "3 × 2"
    assert row["seed by seed s"] > 0 and row["one batch s"] > 0
