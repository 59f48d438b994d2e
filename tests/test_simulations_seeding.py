import numpy as np

from attndepth.simulations.seeding import TOKENS_STREAM, gaussian_tokens, spawn_generators


def test_stack_k_does_not_depend_on_batch_size():
    small = gaussian_tokens(7, 2, 3, 4)
    large = gaussian_tokens(7, 5, 3, 4)
    np.testing.assert_array_equal(small, large[:2])


def test_streams_equal_nested_spawn():
    expected = np.random.default_rng(np.random.SeedSequence(3).spawn(2)[1].spawn(2)[1])
    got = spawn_generators(3, 2, TOKENS_STREAM)[1]
    assert got.random() == expected.random()


def test_different_seeds_differ():
    assert not np.array_equal(gaussian_tokens(0, 1, 3, 4), gaussian_tokens(1, 1, 3, 4))
