"""The influence Gram recursion: SymPy's expectation, the map's algebra and its laws."""

import math

import numpy as np
import pytest

from attndepth.theory.residual_influence import (
    confirm_influence_recursion,
    influence_profile,
    non_first_share,
)


def test_sympy_confirms_the_expected_gram_moves_by_a_g_a_transposed():
    assert confirm_influence_recursion() is True


def test_the_prefix_sum_recursion_equals_the_matrix_one():
    # one pre-LN step by hand: K ← K + k A K̂ Aᵀ, G ← G + c A Ĝ Aᵀ with A uniform causal
    n, d = 5, 16
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    K, G = np.eye(n), np.zeros((n, n, n))
    for j in range(n):
        G[j, j, j] = 1.0
    for _ in range(3):
        s = np.sqrt(np.diag(K))
        G = G + (1 - 2 / d) * np.einsum("km,jmq,pq->jkp", A, G / np.outer(s, s), A)
        K = K + (1 - 1 / d) * A @ (K / np.outer(s, s)) @ A.T
    np.testing.assert_allclose(influence_profile(n, d, (3,))[3], G[:, -1, -1], rtol=1e-12)


def test_at_depth_zero_only_the_last_token_influences_itself():
    assert influence_profile(4, 64, (0,))[0] == [0.0, 0.0, 0.0, 1.0]


def test_pre_ln_collapses_as_a_power_post_ln_exponentially():
    depths = (8, 16, 32, 64)
    pre = influence_profile(8, 256, depths)
    falls = [math.log2(non_first_share(pre[a]) / non_first_share(pre[b]))
             for a, b in zip(depths, depths[1:], strict=False)]
    assert all(0.5 < fall < 0.75 for fall in falls)  # L^(−p), p between ½ and ¾
    post = influence_profile(8, 256, (8, 16), placement="post")
    assert math.log2(non_first_share(post[8]) / non_first_share(post[16])) > 3


def test_the_profile_is_u_shaped():
    profile = influence_profile(8, 256, (16,))[16]
    assert profile[0] > profile[1] and profile[-1] > profile[-2]
    assert min(profile) in profile[1:-1]


@pytest.mark.parametrize("influence", [[1.0, 0.0], [0.25, 0.25, 0.5]])
def test_the_non_first_share(influence):
    assert non_first_share(influence) == pytest.approx(1 - influence[0] / sum(influence))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: influence_profile(0, 64, (1,)), "tokens"),
    (lambda: influence_profile(4, 2, (1,)), "width"),
    (lambda: influence_profile(4, 64, ()), "depths"),
    (lambda: influence_profile(4, 64, (-1,)), "depth"),
    (lambda: influence_profile(4, 64, (1,), placement="peri"), "placement"),
    (lambda: influence_profile(4, 64, (1,), input_scale=0.0), "input_scale"),
    (lambda: non_first_share([0.0, 0.0]), "positive"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
