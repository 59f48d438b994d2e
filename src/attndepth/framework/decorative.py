"""Theory entries that no judged number reads: the check that every entry is tested.

A claim's :class:`~attndepth.framework.theories.Theory` names the functions and constants
its prediction comes from. An entry is *decorative* when it is printed (or computed) but
no number the framework judges depends on it: a wrong value of it would still ``hold``.
:func:`decorative_entries` perturbs each entry in turn — a number ×(1 + ε), a bool
negated, a zero ±ε, a function's numeric results likewise (the numeric fields of a
returned dataclass too), ε = ±10 % — runs one seed of the claim with it, and
compares what the judge reads: the single-seed verdict and the values under every
estimate's ``measured`` and ``predicted`` keys and every check's key. An entry that
moves none of them at ±10 % is tried at ×2, ÷2, ×10, ÷10 and ×0: one that moves there is
*coarse* (it is judged, through a band or a bound with slack: how coarse is its
resolving power, :mod:`attndepth.framework.resolving`); one that moves nothing at any of
them is decorative.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from attndepth.errors import AttndepthError, InvalidParameter
from attndepth.framework.judge import judged
from attndepth.framework.model import Claim
from attndepth.framework.theories import Theory

#: The relative perturbation of every number (10 %: far beyond round-off, a neighbour a
#: referee would name), tried both ways: a one-sided claim (a bound) moves only one way.
PERTURBATION = 0.1
FACTORS = (1 + PERTURBATION, 1 / (1 + PERTURBATION))
#: Tried, in order, on an entry that moves nothing at :data:`FACTORS`: where one moves a
#: judged number the entry is coarse, not decorative. The last, ×0, makes every value of
#: the entry one (a grouping key whose ×10 only relabels its classes merges them all).
COARSE_FACTORS = (2.0, 0.5, 10.0, 0.1, 0.0)


class Unperturbable(Exception):
    """An entry's value has no number to perturb (a string, a module, a plot)."""


def perturbed(value: Any, factor: float) -> Any:
    """``value`` with every number ×factor and every bool negated, recursively (a function
    among them: its results).

    Raises
    ------
    Unperturbable
        Where nothing in it is a number or a bool.
    """
    if isinstance(value, bool | np.bool_):
        return not bool(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            return value  # ±inf, nan: no neighbour to move to
        if value == 0:  # no relative neighbour: the additive one, ±ε
            return math.copysign(PERTURBATION, factor - 1)
        return type(value)(value * factor) if isinstance(value, float) else value * factor
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        return value * factor
    if isinstance(value, tuple | list) and value:
        return type(value)(_perturbed_or_same(item, factor) for item in value)
    if isinstance(value, Mapping) and value:
        return {key: _perturbed_or_same(item, factor) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: perturbed(getattr(value, f.name), factor)
                   for f in dataclasses.fields(value)
                   if isinstance(getattr(value, f.name), numbers.Real)
                   and not isinstance(getattr(value, f.name), bool)}
        if changes:
            return dataclasses.replace(value, **changes)
    if callable(value) and not isinstance(value, type):  # a returned function: its results
        def wrong(*args: Any, **kwargs: Any) -> Any:
            return perturbed(value(*args, **kwargs), factor)
        return wrong
    try:
        import sympy

        if isinstance(value, sympy.Expr):
            return value * sympy.Float(factor)
    except ImportError:  # pragma: no cover - sympy is a dependency
        pass
    raise Unperturbable(type(value).__name__)


def _perturbed_or_same(value: Any, factor: float) -> Any:
    try:
        return perturbed(value, factor)
    except Unperturbable:
        return value


def perturbed_entry(theory: Theory, name: str, factor: float = 1 + PERTURBATION) -> Theory:
    """``theory`` with entry ``name`` perturbed (:func:`perturbed`; a function: its results)."""
    entry = theory[name]
    if callable(entry):
        def wrong(*args: Any, **kwargs: Any) -> Any:
            return perturbed(entry(*args, **kwargs), factor)
        return theory.replaced({name: wrong})
    return theory.replaced({name: perturbed(entry, factor)})


def judged_numbers(found: Claim, outcome: Any) -> tuple[Any, ...]:
    """What the judge reads of one seed's outcome: its verdict, then the values under the
    estimates' and checks' keys (as text of fixed precision, so that a NaN equals itself)."""
    verdict = judged(found, outcome).verdict
    keys: list[str] = []
    for estimate in found.estimates:
        keys += [estimate.measured, estimate.predicted]
    keys += [check.key for check in found.checks]
    values = outcome.values or {}
    return (str(verdict), *(_text(values.get(key)) for key in keys))


def _text(value: Any) -> str:
    return np.array2string(np.asarray(value, dtype=object), precision=12) \
        if value is not None else "None"


def decorative_entries(found: Claim, params: Mapping[str, Any], seed: int = 0,
                       run: Callable[..., Any] | None = None) -> dict[str, str]:
    """The entries of ``found``'s theory whose perturbation changes nothing judged.

    Parameters
    ----------
    found : Claim
    params : the parameters of one run (a preset).
    seed : the run's seed.
    run : ``run(theory) -> Outcome`` (default: the claim's verify at ``params``, as
        ``attndepth verify`` calls it).

    Returns
    -------
    dict
        Each entry that moves nothing judged at ±10 % -> why: ``"decorative"`` (nothing
        judged moves at ×1.1, ÷1.1, ×2, ÷2, ×10, ÷10 or ×0), ``"coarse: ×2"`` (the first of
        :data:`COARSE_FACTORS` that moves a judged number) or ``"unperturbable: TYPE"``
        (its value holds no number; not a finding).
    """
    if run is None:
        from attndepth.framework.running import _sample

        measured = _sample(found, params)  # either verify form; a user's code contained

        def run(theory: Theory) -> Any:
            return measured((seed,), theory, False)[0]

    reference = judged_numbers(found, run(found.theory))
    findings: dict[str, str] = {}
    for name in found.theory:
        verdicts = [_moves(found, run, name, factor, reference) for factor in FACTORS]
        if any(v is True for v in verdicts):
            continue
        unperturbable = [v for v in verdicts if isinstance(v, str)]
        if unperturbable:
            findings[name] = unperturbable[0]
            continue
        # a coarse factor counts only where a judged number moves: ×0 or ×10 may break a
        # line that merely prints the entry, which is no judgment of it
        coarse = next((factor for factor in COARSE_FACTORS
                       if _moves(found, run, name, factor, reference, broken=False) is True),
                      None)
        findings[name] = "decorative" if coarse is None else f"coarse: {_factor(coarse)}"
    return findings


def _factor(factor: float) -> str:
    """×2, ÷10: a perturbation factor as a reader writes it."""
    return f"×{factor:g}" if factor >= 1 or factor == 0 else f"÷{1 / factor:g}"


def _moves(found: Claim, run: Callable[..., Any], name: str, factor: float,
           reference: tuple[Any, ...], broken: bool = True) -> bool | str:
    """Whether the run with entry ``name`` ×``factor`` moves a judged number (a run the
    perturbation breaks does, unless ``broken`` is False); ``"unperturbable: TYPE"`` where
    the entry has no number."""
    try:
        return judged_numbers(found, run(perturbed_entry(found.theory, name, factor))) \
            != reference
    except Unperturbable as error:
        return f"unperturbable: {error}"
    except Exception:  # a perturbed theory that breaks the run is read by the run
        return broken


def refuse_decorative(found: Claim, preset: str, seed: int) -> None:
    """Refuse a claim whose theory has an entry no judged number reads
    (:func:`decorative_entries` at one seed of ``preset``): ``attndepth verify`` runs this
    on a user's claims (``--claims``) before measuring them. Only a claim the framework
    judges (estimates or checks declared) is scanned; a claim whose run itself raises is
    left to the run, which reports it.

    Raises
    ------
    InvalidParameter
        Naming the claim and each decorative entry.
    """
    if not found.theory or not (found.estimates or found.checks):
        # nothing to perturb; or a claim that states its own verdict, which shows the
        # framework nothing but that verdict (a bound with slack does not flip at ±10 %):
        # its wrong theory is its test
        return
    try:
        findings = decorative_entries(found, dict(found.presets[preset]), seed)
    except AttndepthError:
        return
    decorative = sorted(name for name, why in findings.items() if why == "decorative")
    if decorative:
        names = ", ".join(repr(name) for name in decorative)
        raise InvalidParameter(
            f"claim {found.id!r}: theory {'entries' if len(decorative) > 1 else 'entry'} "
            f"{names} change{'' if len(decorative) > 1 else 's'} no judged number (each "
            f"×1.1, ×2, ×10, divided so, and ×0; seed {seed} of the {preset} preset): compare "
            f"a number computed from it, or leave it out of the theory (--no-theory-check "
            f"skips this)")
