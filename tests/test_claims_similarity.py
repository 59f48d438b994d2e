"""The similarity claims at small sizes."""

import pytest

from attndepth.framework.running import run_claim

SMALL = {
    # the rate's band (±2 %) needs d = 32 and 16 stacks a seed (at d = 16 the O(1/d²)
    # remainder and the short window leave the interval straddling its edge)
    "yuzhang.escalation": dict(depth=48, tokens=16, width=32, heads=1, batch=16),
    "yuzhang.linear-rate-fixed": dict(tokens=8, width=8, depth=50, batch=8, temperature=0.5,
                                      skip=5),
    "yuzhang.contraction-bound": dict(depth=10, batch=4, tokens=6, width=8,
                                      doubly_stochastic_samples=50),
    "yuzhang.layernorm": dict(depth=10, tokens=8, width=16, batch=4),
    # τ = 1/2 too: with τ = 1 alone both rivals predict what the derivation does
    "yuzhang.deescalation": dict(depth=60, tokens=8, width=32, batch=4, taus=[1.0, 0.5]),
    "yuzhang.preln": dict(depth=90, tokens=8, width=64, batch=4),
    "dong.collapse": dict(depth=10, tokens=32, width=64, batch=16, temperature=0.25),
    "dong.skip-prevents": dict(depth=24, tokens=16, width=32, batch=8, temperature=0.25),
}


@pytest.mark.parametrize("claim_id", sorted(SMALL))
def test_claim_holds_at_small_size(claim_id):
    result = run_claim(claim_id, seed=1, **SMALL[claim_id])
    # the proved bounds are consistency checks (the bound without leakage, its rival, is
    # not violated either: reported, not judged)
    expected = {"yuzhang.contraction-bound": "consistent",
                "yuzhang.layernorm": "consistent"}.get(claim_id, "holds")
    assert result.verdict == expected, result.outcome


@pytest.mark.slow
def test_postln_rate_tells_the_derived_rate_from_ln2():
    # At two base seeds not used to choose the tolerance, the sample's interval of the
    # slope's relative error lies inside the band and ln 2 (4.9 % apart at d = 32, the
    # quick width) is rejected: a 5 % tolerance accepted both. (One seed's own error may
    # pass the band: the verdict is the sample's.)
    from attndepth.claims.similarity import POSTLN_RATE_TOLERANCE

    for seed in (10, 11):
        result = run_claim("yuzhang.linear-rate-postln", seed=seed)
        interval = result.evidence.interval
        assert -POSTLN_RATE_TOLERANCE < interval.low < interval.high < POSTLN_RATE_TOLERANCE
        assert {rival.name: rival.rejected for rival in result.rivals}["ln 2"]
        # the preset's verdict: the claim's own fails by its known member d = 8
        assert result.preset_verdict == "holds" and result.verdict == "fails"


def test_postln_window_too_short_is_a_clear_error():
    with pytest.raises(ValueError, match="deepen"):
        run_claim("yuzhang.linear-rate-postln", depth=4, tokens=8, width=16, batch=2)


def _needs(extra: str) -> None:
    pytest.importorskip("torch", reason="real architectures need the torch extra")
    if extra == "hf":
        pytest.importorskip("transformers", reason="the Hugging Face models need the hf extra")


def test_escalation_tests_the_rate_not_only_its_sign():
    """A rate 10 % off (the audit's neighbouring constant) fails; the claim's holds."""
    from attndepth.framework.registry import get_claim
    from attndepth.theory.similarity import postln_rate

    theory = get_claim("yuzhang.escalation").theory.replaced(
        {"postln_rate": lambda *args, **kwargs: 1.1 * postln_rate(*args, **kwargs)})
    result = run_claim("yuzhang.escalation", seed=1, theory=theory,
                       **SMALL["yuzhang.escalation"])
    assert result.verdict == "fails", result.outcome


@pytest.mark.slow
def test_bert_is_compared_with_the_similarity_its_configuration_predicts():
    # BERT's N(0, 0.02²) weights make the attention branch tiny against the stream: t_sim
    # reaches 0.99 only after some 10⁴ blocks. It is compared with the t_sim(L) its own
    # configuration predicts (yuzhang.architecture-rate), not with the limit 1 (0.7 away);
    # that predicted rise is too small to tell from none at d = 16
    _needs("hf")
    result = run_claim("yuzhang.escalation", seed=1, architecture="bert", depth=48,
                       tokens=8, width=16, heads=1, batch=4)
    assert result.verdict != "fails", result.outcome
    assert "its Gram recursion" in result.outcome.predicted
    distance = dict((label, interval) for label, interval, _ in result.evidence.estimates)[
        "worst |t_sim(L) − limit|"]
    assert distance.mean < 0.02
    assert not {rival.name: rival.rejected for rival in result.rivals}[
        "the skip keeps tokens apart"]


def test_the_derived_rate_misses_a_real_post_ln_stack_outside_its_family():
    # torch's post-LN encoder has an FFN and Xavier weights: not the derivation's block.
    # Its slope is measured; its per-token scaling part is not (no interval, no decision)
    _needs("torch")
    result = run_claim("yuzhang.linear-rate-postln", seed=1, architecture="encoder-post",
                       depth=40, tokens=8, width=16, batch=4)
    assert result.verdict == "fails" and result.in_family is False
    assert result.outcome.values["scaling_ratios"] is None
    intervals = {label: interval for label, interval, _ in result.evidence.estimates}
    assert intervals["per-token scaling part / q − 1"] is None
    assert abs(intervals["rel. error of the slope"].mean) > 0.2


@pytest.mark.slow
def test_the_torch_pre_ln_encoder_escalates_slower_than_its_post_ln_twin():
    _needs("torch")
    result = run_claim("yuzhang.preln", seed=1, architecture="encoder-pre", depth=60,
                       tokens=8, width=32, batch=4)
    assert result.verdict == "holds", result.outcome
    assert "encoder-pre against encoder-post" in result.outcome.note


def test_a_post_norm_model_is_no_pre_ln_member():
    with pytest.raises(ValueError, match="architecture must be one of attndepth, gpt2"):
        run_claim("yuzhang.preln", architecture="bert", depth=60, tokens=8, width=32, batch=4)


@pytest.mark.slow
def test_pre_ln_against_a_reference_that_does_not_escalate_is_inconclusive_at_every_seed():
    # BERT at its 0.02 initialisation does not escalate: a ratio to its slope (near 0) has
    # no mean, and a t-interval of it once "failed" at one base seed of five. Each seed is
    # now undecided by itself (so is the sample: test_framework_evidence)
    _needs("hf")
    from attndepth.framework.judge import judged
    from attndepth.framework.registry import get_claim

    found = get_claim("yuzhang.preln")
    for seed in (0, 3):  # each run as the framework judges it
        outcome = judged(found, found.verify(seed=seed, theory=found.theory, architecture="gpt2",
                                             depth=32, tokens=8, width=16, batch=2))
        assert outcome.verdict == "inconclusive", outcome
        assert "the reference does not escalate" in outcome.note
