"""The bench's forward-pass helpers: the batched seed sample, a side timed alone, law."""

from bench.forward import seeds_in_one_batch


def test_a_seed_sample_in_one_batch_gives_each_seeds_states_bit_for_bit():
    row = seeds_in_one_batch(tokens=4, width=8, depth=3, stacks=2, seeds=3)
    assert row["identical"] is True and row["seeds × stacks"] == "3 × 2"
    assert row["seed by seed s"] > 0 and row["one batch s"] > 0


def test_a_side_timed_alone_runs_in_a_process_of_its_own():
    # the NumPy side (JAX needs the train extra): a fresh interpreter, a positive time
    from bench.forward import _alone

    assert 0 < _alone("numpy", 4, 8, 2, 2) < 10


def test_the_law_row_times_both_samplings_of_the_same_stacks():
    from bench.forward import law_vs_weights

    row = law_vs_weights("post-ln", tokens=4, width=16, depth=3, batch=8, seeds=2)
    assert row["weights s"] > 0 and row["law s"] > 0
    assert abs(row["difference / error"]) < 5  # the same law, 16 stacks each
