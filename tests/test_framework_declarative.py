"""A claim from an expression, an observable and a stack: everything a written claim has."""

import pytest
import sympy as sp

from attndepth import Family, StackConfig
from attndepth.framework import pool_runs, registry, running
from attndepth.framework.declarative import derived_claim

width = sp.Symbol("width", positive=True)


@pytest.fixture
def declared(monkeypatch):
    from attndepth.figures import registry as figures

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))
    monkeypatch.setattr(figures, "_USER_FIGURES", {})

    # pure attention collapses: deep enough, the last state's t_sim is 1 at every width
    @derived_claim("mine.collapse-declared", expression=sp.Integer(1) + 0 * width,
                   observable="t_sim_final", tolerance=0.01, source="Dong et al. 2021",
                   statement="Deep pure attention ends with t_sim = 1.",
                   family=Family(parameters={"width": (4, 8)}, fixed={"tokens": 4}),
                   presets={"quick": {"width": 4}, "full": {"width": 8}},
                   rivals={"half": (sp.Rational(1, 2), "a straw man")},
                   wrong=sp.Rational(1, 2), batch=4, seeds=(2, 4))
    def stack(width, tokens):
        return StackConfig(variant="pure", depth=40, tokens=tokens, width=width)

    return "mine.collapse-declared"


def test_a_declared_claim_runs_with_its_rivals_wrong_theory_and_seed_sample(declared):
    [result] = pool_runs.run_claims([declared], wrong_theory=[declared])
    assert result.verdict == "holds", result.outcome
    assert result.wrong_theory == "fails"
    assert [r.rejected for r in result.rivals] == [True]
    assert result.evidence is not None and len(result.evidence.seeds) >= 2
    assert "±0.01" in result.tolerance and result.in_family is True


def test_a_declared_claim_is_searched_and_drawn(declared, tmp_path):
    from attndepth.figures.registry import write_figure
    from attndepth.framework.search import search_claim

    report = search_claim(declared, draws=0, workers=1)
    assert report.verdict == "holds" and report.exhaustive_checked == 2
    paths = write_figure(declared, tmp_path)
    assert paths[0].stat().st_size > 0 and paths[2].read_text().startswith("width,measured")


@pytest.mark.parametrize(("fields", "message"), [
    (dict(expression=sp.Symbol("depth")), r"uses \['depth'\], which are not parameters"),
    (dict(observable="t_sim_fnal"), "did you mean t_sim_final"),
    (dict(tolerance=0), "tolerance must be a relative error"),
    (dict(expression="not an expression ("), "must be a SymPy expression"),
])
def test_a_malformed_declaration_is_one_clear_error(monkeypatch, fields, message):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))
    arguments = dict(expression=sp.Integer(1), observable="t_sim_final", tolerance=0.01,
                     source="-", statement="-", family=Family(parameters={"width": (4,)}),
                     presets={"quick": {"width": 4}, "full": {"width": 4}})
    with pytest.raises((ValueError, TypeError), match=message):
        derived_claim("mine.bad", **{**arguments, **fields})(lambda width: StackConfig())


@pytest.mark.parametrize("expression, shown", [(sp.log(0 * width), "-inf"),
                                               (sp.nan + 0 * width, "nan")])
def test_a_non_finite_prediction_is_an_error_not_inconclusive(monkeypatch, expression, shown):
    from attndepth.errors import UserCodeFailed

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    claim_id = f"mine.non-finite-{shown}"

    @derived_claim(claim_id, expression=expression, observable="t_sim_final", tolerance=0.01,
                   source="s", statement="s",
                   family=Family(parameters={"width": (4,)}, fixed={"tokens": 4}),
                   presets={"quick": {"width": 4}, "full": {"width": 4}}, batch=2,
                   seeds=(2, 2))
    def stack(width, tokens):
        return StackConfig(variant="pure", depth=2, tokens=tokens, width=width)

    result = pool_runs.run_claims([claim_id])[0]
    assert result.verdict == "error" and shown in result.outcome.note
    with pytest.raises(UserCodeFailed, match=shown):
        running.run_claim(claim_id)
