import math

import pytest
import sympy as sp

from attndepth.theory.similarity import (
    confirm_invariant_eigenspace,
    generic_row_stochastic,
    leading_basis,
    mean_projector,
)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_invariant_eigenspace_lemma(n):
    assert confirm_invariant_eigenspace(n)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_helmert_basis_orthonormal_with_leading_ones(n):
    Q = leading_basis(n)
    assert (Q.T * Q).applyfunc(sp.simplify) == sp.eye(n)
    assert Q[:, 0] == sp.ones(n, 1) / sp.sqrt(n)


def test_projector_is_idempotent_and_rows_stochastic():
    Pi = mean_projector(4)
    assert Pi * Pi == Pi
    P = generic_row_stochastic(3)
    assert (P * sp.ones(3, 1)).applyfunc(sp.simplify) == sp.ones(3, 1)


def test_lemma_fails_for_non_stochastic_matrix():
    # Sanity of the check itself: a matrix without P1 = 1 breaks the form.
    from attndepth.theory.similarity import invariant_eigenspace_form

    form = invariant_eigenspace_form(sp.Matrix([[1, 1], [0, 1]]))
    assert form[1, 0] != 0


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_bad_tokens(bad):
    with pytest.raises(ValueError, match="tokens"):
        mean_projector(bad)


def test_bound_expressions_and_multihead_reduction():
    from attndepth.theory.similarity import (
        contraction_bound_expression,
        kappa,
        leakage,
        multihead_contraction_bound,
        r_in,
        sigma2,
    )

    general = contraction_bound_expression("general")
    values = {r_in: 0.1, sigma2: 0.5, leakage: 0.3, kappa: 1.0}
    assert float(general.subs(values)) == pytest.approx(
        multihead_contraction_bound(0.1, [0.5], [0.3], [1.0], 1.0))
    # With κ = 2 the single-head form is the tighter one.
    assert float(general.subs({**values, kappa: 2.0})) < multihead_contraction_bound(
        0.1, [0.5], [0.3], [2.0], 1.0)
    assert multihead_contraction_bound(10.0, [0.5], [0.3], [1.0], 1.0) == float("inf")
    with pytest.raises(ValueError, match="kind"):
        contraction_bound_expression("lazy")


def test_symbolic_identities():
    from attndepth.theory.similarity import (
        confirm_centring_commutes,
        confirm_contraction_identity,
        confirm_deescalation_algebra,
        confirm_rate_limit,
        scaling_commutator_norm,
    )

    assert confirm_contraction_identity(3)
    assert confirm_deescalation_algebra(4)
    assert confirm_centring_commutes(3, 2)
    assert scaling_commutator_norm(3)
    assert confirm_rate_limit()


def test_rates():
    import math

    from attndepth.theory.similarity import (
        fixed_matrix_rate,
        lambda2,
        postln_rate_expression,
        s_realised,
        width_symbol,
    )

    assert float(fixed_matrix_rate().subs(lambda2, 0.5)) == pytest.approx(2 * math.log(0.5))
    post = float(postln_rate_expression("post-ln").subs({s_realised: 0, width_symbol: 10**9}))
    assert post == pytest.approx(math.log(2), rel=1e-6)
    a_half = postln_rate_expression("deesc-a", sp.Rational(1, 2)).subs(
        {s_realised: 0, width_symbol: 10**9})
    assert float(a_half) == pytest.approx(math.log(1.25), rel=1e-6)
    b_half = postln_rate_expression("deesc-b", sp.Rational(1, 2)).subs(
        {s_realised: 0, width_symbol: 10**9})
    assert float(b_half) == pytest.approx(math.log(0.5), rel=1e-6)
    with pytest.raises(ValueError, match="placement"):
        postln_rate_expression("middle")


def test_the_rate_with_skip_and_branch_scales_reduces_to_the_plain_rate_and_is_scale_free():
    from attndepth.theory.similarity import (
        alpha_symbol,
        beta_symbol,
        postln_rate,
        postln_rate_expression,
    )

    c = sp.Symbol("c", positive=True)
    for placement in ("post-ln", "deesc-a", "deesc-b"):
        general = postln_rate_expression(placement, sp.Rational(1, 3), alpha_symbol,
                                         beta_symbol)
        plain = postln_rate_expression(placement, sp.Rational(1, 3))
        assert sp.simplify(general.subs({alpha_symbol: 1, beta_symbol: 1}) - plain) == 0
        scaled = general.subs({alpha_symbol: c * alpha_symbol, beta_symbol: c * beta_symbol},
                              simultaneous=True)
        assert sp.simplify(sp.expand_log(scaled - general, force=True)) == 0  # depends on β/α
    rates = [postln_rate(0.2, 64, skip_scale=a) for a in (1.0, 1.5, 2.0, 4.0, 8.0)]
    assert all(b < a for a, b in zip(rates, rates[1:], strict=False))  # DeepNorm: α slows it
    assert rates[-1] == pytest.approx(math.log(1 + (1 - 0.04) * (1 - 1 / 64) / 64), rel=0.05)


def test_rmsnorm_keeps_the_whole_mean_update():
    from attndepth.theory.similarity import postln_rate

    layer, rms = postln_rate(0.0, 8), postln_rate(0.0, 8, norm_kind="rms")
    assert rms > layer
    # ln 2 − v/(2μ²) + q with v = 8/d (product weights), μ = 2, q = 1/(2d)
    assert rms == pytest.approx(math.log(2) - 8 / 8 / 8 + 1 / 16, rel=1e-12)


def test_the_scaling_term_is_half_over_d_for_the_plain_aligned_block():
    from attndepth.theory.similarity import postln_rate, scaling_share

    assert scaling_share(0.0, 64) == pytest.approx(1 / 128, rel=1e-12)
    # placement (a) at τ = 1 leaves the mean's direction deterministic: no radial part at s = 0
    assert scaling_share(0.0, 64, "deesc-a", 1.0) == 0.0
    # DeepNorm α = 2: β²/(d(α² + β²)) at s = 0
    assert scaling_share(0.0, 32, skip_scale=2.0) == pytest.approx(1 / (5 * 32), rel=1e-12)
    with pytest.raises(ValueError, match="width"):
        scaling_share(0.0, 1)
    # the number is the expression's: q = (1 + 3s²)/(2d(1 + s²)) at α = β = 1
    assert scaling_share(0.3, 16) == pytest.approx((1 + 3 * 0.09) / (2 * 16 * 1.09), rel=1e-12)
    # the rate at s = 0 has it: ln(2 − 1/d) − 4/(d(2 − 1/d)²) + 1/(2d)
    mu = 2 - 1 / 32
    assert postln_rate(0.0, 32) == pytest.approx(
        math.log(mu) - 4 / (32 * mu**2) + 1 / 64, rel=1e-12)


def test_rate_arguments_follow_the_block_and_refuse_where_nothing_is_derived():
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.theory.similarity import postln_rate, rate_arguments

    deepnorm = rate_arguments(StackConfig(variant="post-ln", skip_scale=2.0, norm_kind="rms"))
    assert deepnorm == {"placement": "post-ln", "tau": 1.0, "skip_scale": 2.0,
                        "residual_scale": 1.0, "norm_kind": "rms"}
    assert rate_arguments(StackConfig(variant="post-ln-deesc-b", tau=0.5))["placement"] \
        == "deesc-b"
    for fields, reason in ((dict(variant="pre-ln"), "placement 'pre'"),
                           (dict(norm="peri"), "placement 'peri'"),
                           (dict(variant="pure", norm="post"), "no skip path"),
                           (dict(ffn=True), "feed-forward")):
        with pytest.raises(ValueError, match=reason):
            rate_arguments(StackConfig(**fields))
    with pytest.raises(ValueError, match="skip_scale"):
        postln_rate(0.1, 16, skip_scale=0.0)
