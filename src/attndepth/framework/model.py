"""What a claim is and what one run of it found: the data model.

A claim is the unit of this toolkit: an id, the paper and place it comes from, one
sentence, a theory side (``attndepth.theory``), a simulation side
(``attndepth.simulations``) and its declarations of how the measurement is judged
(:mod:`attndepth.framework.declarations`). Its *verify* function runs both sides for one
parameter set and returns an :class:`Outcome`; presets name parameter sets (``quick``
for ``attndepth verify``, ``full`` for publication numbers). What a run reports is a
:class:`~attndepth.framework.results.ClaimResult`.

Words: a *verify* function measures and returns an ``Outcome``; a *measure* function
(``attndepth.simulations``) only measures; a sweep *observable* returns a dict of
numbers for the store; a theory *check* (``attndepth.theory``) confirms an identity
symbolically.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from attndepth.errors import InvalidType
from attndepth.framework.declarations import Check, Estimate, Rival
from attndepth.framework.families import Family
from attndepth.framework.theories import Theory
from attndepth.framework.verdicts import Verdict

#: What a claim is: a theory verdict, or a consistency check of the software.
KINDS: tuple[str, ...] = ("theory", "consistency")
PRESETS: tuple[str, ...] = ("quick", "full")


@dataclass(frozen=True)
class Outcome:
    """What one run of a claim found.

    A claim's verify function measures: it returns the ``values`` its estimates and
    checks read, and a ``note``; the framework judges the run and words the prediction
    and the measurement (:mod:`attndepth.framework.judge`). A verify function may still
    give its own ``verdict`` and texts (a user's claim of the earlier form); they are
    then kept.

    Attributes
    ----------
    predicted, measured : str
        Short human-readable statements of the numbers ("" for the framework's).
    verdict : Verdict or None
        None: the framework's, from the claim's estimates and checks. Else usually
        ``holds``, ``fails`` or ``inconclusive`` (:mod:`attndepth.framework.verdicts`);
        the word is accepted too.
    note : str
        What the comparison was and anything worth knowing.
    values : dict
        The numbers behind predicted/measured, for JSON.
    """

    predicted: str = ""
    measured: str = ""
    verdict: Verdict | None = None
    note: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict is not None:
            object.__setattr__(self, "verdict", Verdict.of(self.verdict))
        for name in ("predicted", "measured", "note"):
            if not isinstance(getattr(self, name), str):
                raise InvalidType(f"Outcome.{name} must be a str, got "
                                  f"{type(getattr(self, name)).__name__}")
        if not isinstance(self.values, dict):
            raise InvalidType(f"Outcome.values must be a dict, got {type(self.values).__name__}")

    @property
    def judgement(self) -> Verdict:
        """The verdict of a judged outcome (every outcome a run reports is judged:
        :func:`attndepth.framework.judge.judged`)."""
        if self.verdict is None:
            raise RuntimeError("an outcome was reported before the framework judged it")
        return self.verdict


@dataclass(frozen=True)
class Claim:
    """A registered claim and everything that makes it up.

    Attributes
    ----------
    id : str
        E.g. ``levine.degree``.
    source : str
        Paper, section or equation; ``[derived]`` marks what this project derived.
    statement : str
        One sentence.
    tolerance : str
        The comparison, in words; registration words it from the estimates and checks
        when the claim states none (each band is then stated once).
    verify : callable
        ``verify(seed, [theory,] [shown,] **params) -> Outcome``, or
        ``verify(seed_sample, [theory,] [shown,] **params) -> [Outcome, ...]``
        measuring a whole sample of seeds in one call; ``shown`` is False where only
        the verdict and the estimates' values of the outcome are used
        (:func:`attndepth.framework.sampling.verify_form`).
    presets : mapping
        Parameters for each preset name.
    theory : Theory
        The functions and constants ``verify`` predicts with, passed to it as
        ``theory`` when it takes that argument.
    simulation : tuple of callables
        The functions of ``attndepth.simulations`` that ``verify`` measures with.
    test : str
        ``tests/<module>.py::<test>`` that exercises the claim beyond the registry test.
    figure : str or None
        Name of the figure that draws it (``attndepth figures --list``).
    wrong_theory : mapping
        Names of ``theory`` and wrong values for them: with
        ``theory.replaced(wrong_theory)`` the prediction is false and ``verify``
        must say ``fails``.
    conjecture : bool
        The statement is a conjecture of this project, not a theorem.
    family : Family or None
        The domain the claim is asserted on (:mod:`attndepth.framework.families`), searched
        by ``attndepth verify --search``.
    by_default : bool
        Whether ``attndepth verify`` (and ``--search``) without ``--claim`` runs it.
        Claims that train networks are not run by default: they need the ``train``
        extra and minutes; name them with ``--claim``.
    estimate : Estimate or None
        For a stochastic claim: the number compared across a sample of seeds
        (:mod:`attndepth.framework.evidence`); the verdict comes from its interval.
    rivals : tuple of Rival
        Plausible alternative theories, each with its source; ``holds`` needs
        every one rejected.
    kind : {"theory", "consistency"}
        ``consistency``: a comparison only a software bug can fail (reported
        apart from theory verdicts, as ``consistent`` / ``inconsistent``).
    checks : tuple of Check
        The conditions that are not estimates (an exact count, a SymPy identity): each
        names the value the verify function returns for it
        (:class:`~attndepth.framework.declarations.Check`).
    """

    id: str
    source: str
    statement: str
    tolerance: str
    verify: Callable[..., Outcome]
    presets: Mapping[str, Mapping[str, Any]]
    theory: Theory = field(default_factory=Theory)
    simulation: tuple[Callable[..., Any], ...] = ()
    test: str = ""
    figure: str | None = None
    wrong_theory: Mapping[str, Any] = field(default_factory=dict)
    conjecture: bool = False
    family: Family | None = None
    by_default: bool = True
    estimate: Estimate | tuple[Estimate, ...] | None = None
    rivals: tuple[Rival, ...] = ()
    kind: str = "theory"
    checks: tuple[Check, ...] = ()

    @property
    def module(self) -> str:
        """The module holding ``verify``; ``__main__`` for code without one (a notebook
        cell, ``exec``, a callable object without ``__module__``): a user's."""
        return getattr(self.verify, "__module__", None) or "__main__"

    @property
    def wrong(self) -> Theory:
        """The claim's theory with its wrong theory in place."""
        return self.theory.replaced(self.wrong_theory)

    @property
    def estimates(self) -> tuple[Estimate, ...]:
        """The claim's estimates as a tuple (empty: decided by one run)."""
        if self.estimate is None:
            return ()
        return (self.estimate,) if isinstance(self.estimate, Estimate) else tuple(self.estimate)


def verdict_from(condition: bool, inconclusive: bool = False) -> Verdict:
    """``holds`` / ``fails``, or ``inconclusive`` when the test could not decide: for a
    verify function that states its own verdict (the earlier form; a claim now declares
    its checks and estimates and leaves the verdict to the framework)."""
    if inconclusive:
        return Verdict.INCONCLUSIVE
    return Verdict.HOLDS if condition else Verdict.FAILS
