"""The registry of rank methods: a name gives one method object with its own frozen
options and one ``measure``; the keywords of one method are refused by another with the
list of its own; ``auto`` resolves by ρ; ρ = 1 from ρ = 0's blocks."""

import dataclasses

import pytest

from attndepth.rank.grids import RankCertificate, SeparationRankConfig
from attndepth.rank.methods import (
    METHOD_NAMES,
    METHODS,
    BlockOptions,
    GridOptions,
    RankMethod,
    TorusOptions,
    resolve_method,
)


def test_each_name_gives_one_method_with_frozen_options_and_one_certificate_type():
    assert METHOD_NAMES == ("auto", "exact", "numeric", "blocks", "torus")
    config = SeparationRankConfig(width=2, depth=2, tokens=4)
    for name, method in METHODS.items():
        assert isinstance(method, RankMethod) and method.name == name and method.summary
        options = method.options()
        with pytest.raises(dataclasses.FrozenInstanceError):
            options.margin = 3
        certificate = method.measure(config, 0, options)
        assert isinstance(certificate, RankCertificate) and certificate.method == name
        assert certificate.rank == method.measure(config, 0).rank  # None: the defaults
    assert {type(METHODS[name].options()) for name in METHODS} == {
        GridOptions, BlockOptions, TorusOptions}


def test_a_method_refuses_another_methods_keywords_and_options_naming_its_own():
    with pytest.raises(ValueError, match=r"the blocks method takes only the keywords "
                                         r"checkpoint, .*got \['rank_cap'\]"):
        METHODS["blocks"].options(rank_cap=10)
    with pytest.raises(ValueError, match="the exact method takes only"):
        METHODS["exact"].options(order=4)
    with pytest.raises(TypeError, match="the torus method takes TorusOptions, got BlockOptions"):
        METHODS["torus"].measure(SeparationRankConfig(width=2, depth=2, tokens=4), 0,
                                 BlockOptions())
    assert METHODS["torus"].takes("order") and not METHODS["blocks"].takes("order")
    for method in METHODS.values():
        with pytest.raises(TypeError, match="config must be a SeparationRankConfig"):
            method.measure({"width": 2}, 0)


def test_auto_is_blocks_without_the_residual_and_exact_with_it():
    plain = SeparationRankConfig(width=2, depth=2, tokens=4)
    assert resolve_method(plain, "auto") is METHODS["blocks"]
    assert resolve_method(dataclasses.replace(plain, residual=1), "auto") is METHODS["exact"]
    assert resolve_method(plain, METHODS["torus"]) is METHODS["torus"]
    with pytest.raises(ValueError, match="method must be one of auto, exact, numeric, blocks, "
                                         "torus, got 'svd'"):
        resolve_method(plain, "svd")


def test_the_methods_agree_where_each_is_proved():
    config = SeparationRankConfig(width=3, depth=2, tokens=4)
    ranks = {name: method.measure(config, 0) for name, method in METHODS.items()
             if name != "numeric"}
    assert {c.rank for c in ranks.values()} == {49}
    assert {c.reason for c in ranks.values()} == {"upper-bound"}


def test_residual_blocks_above_a_bound_stop_and_take_rho_one_only(monkeypatch):
    from attndepth.rank import methods
    from attndepth.rank.degree_blocks import BoundViolation
    from attndepth.theory.separation_rank import SeparationRankBounds

    config = SeparationRankConfig(width=2, depth=2, tokens=4, residual=1)
    monkeypatch.setattr(methods, "bounds_for",
                        lambda config: SeparationRankBounds(10**6, 10**6, 10**6, 5))
    with pytest.raises(BoundViolation, match="above the proved bound 5"):
        methods.residual_block_ranks(config)
    with pytest.raises(ValueError, match="residual = 1"):
        methods.residual_block_ranks(SeparationRankConfig(width=2, depth=2, tokens=4))
    with pytest.raises(TypeError, match="SeparationRankConfig"):
        methods.residual_block_ranks({"width": 2})
