"""The claims registry.

A claim is the unit of this toolkit: an id, the paper and place it comes
from, one sentence, a theory side (``attndepth.theory``), a simulation side
(``attndepth.simulations``) and a comparison with an explicit tolerance. Its
*verify* function runs both sides for one parameter set and returns an
:class:`Outcome`; presets name parameter sets (``quick`` for
``attndepth verify``, ``full`` for publication numbers), and tests call the
verify function with hypothesis-drawn small parameters.

A claim is registered beside its verify function with the :func:`claim` decorator,
which also declares its *theory* (a frozen :class:`~attndepth.framework.theories.Theory`
of the functions and constants it predicts with, which the verify function receives
as its ``theory`` argument), the simulation functions it calls, the test that
exercises it, its figure, and a *wrong theory*: replacements for names of its theory
that make the prediction false, so that a test can show the claim is able to fail
(``attndepth verify --explain ID`` prints all of it). A wrong theory or a rival is a
new theory object passed to the same verify function; nothing is written to any
module, and runs of one claim may overlap.

Words: a *verify* function compares theory with measurement and returns an
``Outcome``; a *measure* function (``attndepth.simulations``) only measures; a
sweep *observable* returns a dict of numbers for the store; a theory *check*
(``attndepth.theory``) confirms an identity symbolically.

The built-in claims are defined in the topic modules of :mod:`attndepth.claims`, each
found by :func:`built_in_claim_modules`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import os
import pkgutil
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from attndepth.errors import (
    InvalidParameter,
    InvalidType,
    UserCodeFailed,
    describe_exception,
)
from attndepth.framework.deciding import ToDecide, to_decide
from attndepth.framework.domain import Domain, check_records, known_domain
from attndepth.framework.evidence import (
    FRAMEWORK_ARGUMENTS,
    MAX_BASE_SEED,
    Estimate,
    Evidence,
    Rival,
    RivalResult,
    Sample,
    decide,
    rival_by_verdict,
    sampler,
    verify_form,
)
from attndepth.framework.families import Family
from attndepth.framework.progress import seed_done
from attndepth.framework.theories import Theory
from attndepth.framework.verdicts import DECIDED, Verdict, domain_verdict, failing_for
from attndepth.sandbox import no_process_exit, user_code
from attndepth.validation import check_int

#: What a claim is: a theory verdict, or a consistency check of the software.
KINDS: tuple[str, ...] = ("theory", "consistency")
PRESETS: tuple[str, ...] = ("quick", "full")

#: The package whose modules hold the built-in claims (every module of it is imported).
BUILT_IN_CLAIMS = "attndepth.claims"


@functools.cache
def built_in_claim_modules() -> tuple[str, ...]:
    """Every module of :data:`BUILT_IN_CLAIMS`, found (not listed), in the order of the
    theory document: each claim module declares ``SECTION``, its (section, place); a
    module that registers no claim (presets, architectures) declares none and comes last.
    """
    package = importlib.import_module(BUILT_IN_CLAIMS)
    names = [f"{BUILT_IN_CLAIMS}.{info.name}"
             for info in pkgutil.iter_modules(package.__path__)
             if not info.name.startswith("_")]
    sections = {name: getattr(importlib.import_module(name), "SECTION", (math.inf,))
                for name in names}
    return tuple(sorted(names, key=lambda name: (sections[name], name)))


@dataclass(frozen=True)
class Outcome:
    """What one run of a claim found.

    Attributes
    ----------
    predicted, measured : str
        Short human-readable statements of the numbers.
    verdict : Verdict
        Usually ``holds``, ``fails`` or ``inconclusive``
        (:mod:`attndepth.framework.verdicts`); the word is accepted too.
    note : str
        What the comparison was and anything worth knowing.
    values : dict
        The numbers behind predicted/measured, for JSON.
    """

    predicted: str
    measured: str
    verdict: Verdict
    note: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict.of(self.verdict))
        for name in ("predicted", "measured", "note"):
            if not isinstance(getattr(self, name), str):
                raise InvalidType(f"Outcome.{name} must be a str, got "
                                  f"{type(getattr(self, name)).__name__}")
        if not isinstance(self.values, dict):
            raise InvalidType(f"Outcome.values must be a dict, got {type(self.values).__name__}")


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
        The comparison, in words, with its numbers.
    verify : callable
        ``verify(seed, [theory,] [shown,] **params) -> Outcome``, or
        ``verify(seed_sample, [theory,] [shown,] **params) -> [Outcome, ...]``
        measuring a whole sample of seeds in one call; ``shown`` is False where only
        the verdict and the estimates' values of the outcome are used
        (:func:`attndepth.framework.evidence.verify_form`).
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


@dataclass(frozen=True)
class ClaimResult:
    """A claim's outcome with the run's provenance."""

    id: str
    source: str
    statement: str
    tolerance: str
    preset: str
    seed: int
    params: dict[str, Any]
    outcome: Outcome
    seconds: float
    conjecture: bool = False
    #: What the sample of seeds said (None: a claim decided by one run).
    evidence: Evidence | None = None
    rivals: tuple[RivalResult, ...] = ()
    #: Whether the parameters lie in the claim's family (None: it has none, or a
    #: family parameter is not among them).
    in_family: bool | None = None
    kind: str = "theory"
    #: The verdict with the claim's wrong theory in place, when it was run: the
    #: claim is shown able to fail when this is ``fails`` (``inconsistent`` for a
    #: check); ``"none"`` when the claim declares no wrong theory.
    wrong_theory: str | None = None
    #: What is known of the claim's whole family (:mod:`attndepth.framework.domain`):
    #: set when the claim ran at a preset with its own theory; None for a run at other
    #: parameters (a family member, a map's grid point) or with another theory.
    domain: Domain | None = None
    #: What would decide an undecided run (:mod:`attndepth.framework.deciding`); None
    #: when it is decided.
    to_decide: ToDecide | None = None

    def __repr__(self) -> str:
        """One line: the id, the verdict (and the preset's, where the domain's differs),
        the preset and the seconds. A notebook shows the whole report
        (``_repr_pretty_``)."""
        word = self.claim_verdict or "outside its family"
        preset = (f", {self.preset_verdict} at the preset" if self.claim_verdict is not None
                  and self.verdict != self.preset_verdict else "")
        return (f"<ClaimResult {self.id}: {word}{preset} ({self.preset}, base seed "
                f"{self.seed}, {self.seconds:.2f} s)>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython and Jupyter
        from attndepth.framework.result_text import TABLE_WIDTH, result_block

        printer.text(repr(self) if cycle else "\n".join(result_block(self, TABLE_WIDTH)))

    def _repr_html_(self) -> str:  # Jupyter
        """The report's lines as an HTML table: verdict, prediction, measurement,
        tolerance, rivals, and the domain's failing members."""
        from attndepth.framework.result_text import result_html

        return result_html(self)

    @property
    def verdict(self) -> Verdict:
        """The claim's verdict: its domain's (:func:`~attndepth.framework.verdicts.
        domain_verdict`) when the domain is joined, else the run's own."""
        if self.domain is None:
            return self.outcome.verdict
        return domain_verdict(self.outcome.verdict, bool(self.domain.failures), self.kind)

    @property
    def claim_verdict(self) -> Verdict | None:
        """The verdict as the claim's: None for parameters outside its family (a run
        there says nothing of the claim)."""
        return None if self.in_family is False else self.verdict

    @property
    def preset_verdict(self) -> Verdict:
        """The verdict of this run alone (at its preset or parameters)."""
        return self.outcome.verdict

    @property
    def wrong_theory_caught(self) -> bool | None:
        """Whether the wrong theory made the claim fail (None: not run, or none declared)."""
        if self.wrong_theory in (None, "none"):
            return None
        return self.wrong_theory == failing_for(self.kind)


_REGISTRY: dict[str, Claim] = {}
#: claim id -> the source :func:`load_claims` loaded it from.
_SOURCES: dict[str, str] = {}


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (ids are unique); returns it.

    Raises
    ------
    TypeError
        ``claim`` is not a :class:`Claim`, or its verify is not callable.
    ValueError
        The id is taken, a preset is missing, or a ``wrong_theory`` or rival name
        is not a name of the claim's theory (or the verify function does not take
        ``theory``, so that no replacement could reach it).
    """
    if not isinstance(claim, Claim):
        raise InvalidType(f"register takes a Claim, got {type(claim).__name__}")
    if not callable(claim.verify):
        raise InvalidType(f"claim {claim.id!r}: verify must be callable")
    if claim.id in _REGISTRY:
        raise InvalidParameter(f"claim id {claim.id!r} is registered twice")
    if claim.family is not None and not isinstance(claim.family, Family):
        raise InvalidType(f"claim {claim.id!r}: family must be a Family, got "
                          f"{type(claim.family).__name__}")
    missing = set(PRESETS) - set(claim.presets)
    if missing:
        raise InvalidParameter(f"claim {claim.id!r} lacks presets {sorted(missing)}")
    named = {name for preset in claim.presets.values() for name in preset}
    if claim.family is not None:
        named |= {*claim.family.parameters, *claim.family.beyond, *claim.family.fixed}
    if named & FRAMEWORK_ARGUMENTS:
        raise InvalidParameter(f"claim {claim.id!r}: its presets or family set "
                               f"{sorted(named & FRAMEWORK_ARGUMENTS)}, which attndepth passes "
                               f"to the verify function itself: rename the parameter")
    if not isinstance(claim.theory, Theory):
        raise InvalidType(f"claim {claim.id!r}: theory must be a Theory (Theory.of makes one), "
                          f"got {type(claim.theory).__name__}")
    try:
        takes_theory = verify_form(claim.verify).takes_theory
    except InvalidType as error:
        raise InvalidType(f"claim {claim.id!r}: {error}") from None
    replaced = [*claim.wrong_theory, *(name for rival in claim.rivals for name in rival.replace)]
    unknown = sorted(set(replaced) - set(claim.theory))
    if unknown:
        raise InvalidParameter(f"claim {claim.id!r}: wrong_theory or rival names {unknown} are not "
                               f"names of its theory ({sorted(claim.theory) or 'none declared'}): "
                               f"declare them, e.g. theory=Theory(my_rate, LIMIT=2)")
    if replaced and not takes_theory:
        raise InvalidParameter(f"claim {claim.id!r}: its wrong theory or rivals replace "
                               f"{sorted(set(replaced))}, so its verify function must take "
                               f"theory and read them from it: def {claim.verify.__name__}("
                               f"seed, theory, ...): ... theory.{replaced[0]} ...")
    if claim.kind not in KINDS:
        raise InvalidParameter(f"claim {claim.id!r}: kind must be one of {KINDS}, got "
                               f"{claim.kind!r}")
    estimates = claim.estimates
    if claim.estimate is not None and (not estimates or not all(
            isinstance(e, Estimate) for e in estimates)):
        raise InvalidType(f"claim {claim.id!r}: estimate must be an Estimate or a tuple of them")
    for rival in claim.rivals:
        if not isinstance(rival, Rival):
            raise InvalidType(f"claim {claim.id!r}: rivals must be Rival objects, got "
                              f"{type(rival).__name__}")
        if rival.predicted is not None and claim.estimate is None:
            raise InvalidParameter(f"claim {claim.id!r}: rival {rival.name!r} predicts from the "
                                   f"outcome values, which needs an estimate (or use replace)")
    _REGISTRY[claim.id] = claim
    return claim


def claim(id: str, *, source: str, statement: str, tolerance: str,
          presets: Mapping[str, Mapping[str, Any]],
          theory: Theory | Mapping[str, Any] | tuple[Callable[..., Any], ...] | None = None,
          simulation: tuple[Callable[..., Any], ...] = (), test: str = "",
          figure: str | None = None, wrong_theory: Mapping[str, Any] | None = None,
          conjecture: bool = False, family: Family | None = None, by_default: bool = True,
          estimate: Estimate | tuple[Estimate, ...] | None = None,
          rivals: tuple[Rival, ...] = (),
          kind: str = "theory",
          ) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Decorator: register the decorated verify function as claim ``id``.

    The keyword arguments are the :class:`Claim` attributes; ``theory`` may be
    a :class:`~attndepth.framework.theories.Theory`, a tuple of functions (named by
    their ``__name__``) or a mapping of names, and every name of ``wrong_theory``
    and of the rivals' ``replace`` must be one of its names.

    Examples
    --------
    A claim in a user's file (``attndepth verify --claims mine.py``)::

        @claim("mine.two", source="arithmetic", statement="1 + 1 = 2",
               tolerance="exact", presets={"quick": {}, "full": {}},
               theory=Theory(TWO=2), wrong_theory={"TWO": 3})
        def verify_two(seed, theory):
            return Outcome(str(theory.TWO), str(1 + 1), verdict_from(1 + 1 == theory.TWO))
    """
    def decorate(verify: Callable[..., Outcome]) -> Callable[..., Outcome]:
        try:
            declared = Theory.of(theory)
        except (InvalidType, InvalidParameter) as error:
            raise type(error)(f"claim {id!r}: {error}") from None
        register(Claim(id=id, source=source, statement=statement, tolerance=tolerance,
                       verify=verify, presets=MappingProxyType(dict(presets)),
                       theory=declared, simulation=tuple(simulation), test=test,
                       figure=figure, wrong_theory=MappingProxyType(dict(wrong_theory or {})),
                       conjecture=conjecture, family=family, by_default=by_default,
                       estimate=estimate, rivals=tuple(rivals), kind=kind))
        return verify
    return decorate


#: Entry-point group through which installed packages register claims: each entry
#: point names a module whose import registers them (``[project.entry-points]``).
ENTRY_POINT_GROUP = "attndepth.framework.registry"
_entry_points_loaded = False


def all_claims() -> dict[str, Claim]:
    """Every registered claim, by id.

    The built-in claims come first, module by module in the order of
    :func:`built_in_claim_modules` (whichever a program imported first), then those of
    installed packages that declare the entry-point group
    :data:`ENTRY_POINT_GROUP`, then any loaded with :func:`load_claims`, in
    registration order.
    """
    global _entry_points_loaded
    modules = built_in_claim_modules()
    if not _entry_points_loaded:
        _entry_points_loaded = True
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            try:
                entry.load()
            except Exception as error:  # a broken plug-in must not break the toolkit
                raise InvalidParameter(f"claims entry point {entry.name!r} ({entry.value}) failed "
                                       f"to load: {type(error).__name__}: {error}") from None
    built_in = {module: index for index, module in enumerate(modules)}
    return dict(sorted(_REGISTRY.items(),  # stable: registration order within a module
                       key=lambda item: built_in.get(item[1].module,
                                                     len(built_in))))


def default_claims() -> list[str]:
    """Ids of the claims ``attndepth verify`` runs when none is named (registry order)."""
    return [claim_id for claim_id, found in all_claims().items() if found.by_default]


def load_claims(source: str) -> list[str]:
    """Import a user's claims from a ``.py`` file or an importable module.

    Parameters
    ----------
    source : str
        A path to a Python file, or a dotted module name. Importing it must
        register claims (with :func:`claim` or :func:`register`).

    Returns
    -------
    list of str
        The ids the source registered (in order).

    Raises
    ------
    ValueError
        The file does not exist, the module cannot be imported, importing it
        raised, or it registered no claim.
    """
    import hashlib
    import importlib.util
    import sys

    all_claims()  # built-ins and plug-ins first
    path = Path(source)
    is_file = source.endswith(".py") or path.exists()
    if is_file and not path.is_file():
        raise InvalidParameter(f"claims file {source} does not exist or is not a file")
    name = (f"attndepth_user_claims_"
            f"{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
            if is_file else source)
    try:
        if is_file and name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:  # a .py file always has one
                raise InvalidParameter(f"claims file {source} cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                with no_process_exit():  # the file's os._exit: its failure, not ours
                    spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        elif not is_file:
            with no_process_exit():
                importlib.import_module(source)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - sys.exit() or anything in a user's file
        raise InvalidParameter(f"loading claims from {source} failed: "
                               f"{describe_exception(error)}") from None
    ids = [found.id for found in _REGISTRY.values() if found.module == name]
    if not ids:
        raise InvalidParameter(f"{source} registered no claim (decorate a function with "
                               f"attndepth.claim)")
    for claim_id in ids:  # how another process (a dask worker) loads the same claims
        _SOURCES[claim_id] = str(path.resolve()) if is_file else source
    return ids


def claim_source(claim_id: str) -> str | None:
    """The file or module a user's claim was loaded from with :func:`load_claims` (None for
    attndepth's own claims and for claims registered by the caller's own imports)."""
    return _SOURCES.get(claim_id)


def get_claim(claim_id: str) -> Claim:
    """The claim with this id, or ``ValueError`` listing the known ids."""
    if not isinstance(claim_id, str):
        raise InvalidType(f"a claim id is a string, got {type(claim_id).__name__}")
    claims = all_claims()
    if claim_id not in claims:
        raise InvalidParameter(f"unknown claim {claim_id!r}{_unknown_hint(claim_id, claims)}")
    return claims[claim_id]


def _unknown_hint(claim_id: str, claims: Mapping[str, Claim]) -> str:
    """Did-you-mean for a mistyped id; for an id from another namespace, a ``--claims`` hint."""
    import difflib

    if not isinstance(claim_id, str):
        return f"; known: {', '.join(claims)}"
    close = difflib.get_close_matches(claim_id, list(claims), n=3, cutoff=0.6)
    if close:
        return f"; did you mean {' or '.join(close)}?"
    namespaces = {known.split(".", 1)[0] for known in claims}
    if "." in claim_id and claim_id.split(".", 1)[0] not in namespaces:
        return ("; it is not built in: load the file that defines it with --claims FILE "
                "(attndepth verify --list shows the known ids)")
    return f"; known: {', '.join(claims)}"


def _check_run(preset: str, seed: int) -> None:
    if preset not in PRESETS:
        raise InvalidParameter(f"preset must be one of {', '.join(PRESETS)}; got {preset!r}")
    check_base_seed(seed)


def check_base_seed(seed: object) -> int:
    """A base seed: an integer from 0 to :data:`~attndepth.framework.evidence.MAX_BASE_SEED`
    (its samples' seeds then fit 64 bits).

    Raises
    ------
    InvalidParameter
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_BASE_SEED:
        shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:40] + "..."
        raise InvalidParameter(f"seed must be an integer from 0 to {MAX_BASE_SEED} (its "
                               f"samples' seeds fit 64 bits), got {shown}")
    return seed


def run_claim(claim_id: str, preset: str = "quick", seed: int = 0, *,
              theory: Theory | None = None, **overrides: Any) -> ClaimResult:
    """Run one claim at a preset, with optional parameter overrides.

    Exceptions of the verify function propagate (``run_claims`` turns them
    into the verdict ``error``). Run at its preset with its own theory, the result
    joins what is known of the claim's whole family (``ClaimResult.domain``), and its
    verdict is the domain's (:mod:`attndepth.framework.domain`); with overrides or
    another theory it is that run's alone.

    Parameters
    ----------
    claim_id : str
    preset : {"quick", "full"}
    seed : int
        The base seed.
    theory : Theory, optional
        The theory to run it with (default: the claim's own); e.g.
        ``found.theory.replaced({...})`` for a theory of your own.
    **overrides
        Parameters in place of the preset's.
    """
    _check_run(preset, seed)
    found = get_claim(claim_id)
    if theory is not None and not isinstance(theory, Theory):
        raise InvalidType(f"theory must be a Theory (the claim's own: get_claim(id).theory), "
                          f"got {type(theory).__name__}")
    params = {**found.presets[preset], **overrides}
    # the claim itself (its preset, its theory) answers for its domain; a run at other
    # parameters or with another theory is that run's alone. Read before the measurement:
    # a damaged record is refused before any work.
    domain = (known_domain(found.id, found.family) if not overrides and theory is None
              else None)
    start = time.perf_counter()
    outcome, evidence, rivals = evaluate(found, seed, params, theory)
    seconds = time.perf_counter() - start
    in_family = found.family.includes(params) if found.family is not None else None
    deciding = to_decide(outcome.verdict, evidence, found.estimates, found.rivals, seconds,
                         outcome.values)
    return ClaimResult(found.id, found.source, found.statement, found.tolerance,
                       preset, seed, params, outcome, seconds, found.conjecture,
                       evidence, rivals, in_family, found.kind, domain=domain,
                       to_decide=deciding)


def evaluate(found: Claim, seed: int, params: Mapping[str, Any],
             theory: Theory | None = None,
             ) -> tuple[Outcome, Evidence | None, tuple[RivalResult, ...]]:
    """Decide one claim at one parameter set: the verdict, its evidence and its rivals.

    A claim with an estimate runs on a sample of seeds based at ``seed``
    (:func:`attndepth.framework.evidence.decide`); one without runs once, and each
    rival that replaces names runs once more with them in place. Exceptions of
    the verify function propagate.

    Parameters
    ----------
    found : Claim
    seed : int
        The base seed.
    params : mapping
        Keyword arguments of the verify function.
    theory : Theory, optional
        The theory it receives (default: the claim's); rivals replace names of it.

    Returns
    -------
    (Outcome, Evidence or None, tuple of RivalResult)
        The outcome carries the verdict (for a consistency check ``consistent`` or
        ``inconsistent``).
    """
    theory = found.theory if theory is None else theory
    why = found.family.undecidable_because(params) if found.family is not None else None
    if why is not None:  # not measured: no sample could decide it
        return (Outcome("(not run)", "(not run)", Verdict.INCONCLUSIVE,
                        f"undecidable by construction: {why}"), None, ())
    run = _sample(found, params)
    if found.estimate is not None:
        evidence, outcomes = decide(run, params, seed, found.estimate, found.rivals, theory)
        first = outcomes[0]
        rivals = evidence.rivals
        outcome = Outcome(first.predicted, evidence.describe(), evidence.verdict,
                          f"seed {evidence.seeds[0]}: {first.measured}; {first.note}",
                          {**first.values, "evidence": evidence.as_dict()})
    else:
        evidence = None
        [outcome] = run((seed,), theory)

        def run_with(rival: Rival) -> Callable[[], str]:
            return lambda: run((seed,), theory.replaced(rival.replace), False)[0].verdict
        rivals = tuple(rival_by_verdict(rival, run_with(rival)) for rival in found.rivals)
        # a consistency check reports its rivals; they cannot make a proof "indistinguishable"
        if outcome.verdict == Verdict.HOLDS and found.kind != "consistency" \
                and not all(r.rejected for r in rivals):
            outcome = Outcome(outcome.predicted, outcome.measured, Verdict.INDISTINGUISHABLE,
                              outcome.note, outcome.values)
    if found.kind == "consistency" and outcome.verdict in DECIDED:
        outcome = Outcome(outcome.predicted, outcome.measured,
                          Verdict.CONSISTENT if outcome.verdict == Verdict.HOLDS
                          else Verdict.INCONSISTENT, outcome.note, outcome.values)
    return outcome, evidence, rivals


def wrong_theory_verdict(claim_id: str, preset: str = "quick", seed: int = 0) -> str | None:
    """The claim's verdict with its wrong theory in place (:attr:`Claim.wrong`).

    A claim that cannot be made to fail proves nothing when it holds: this is
    the run that shows it can (the verdict must be ``fails``, or
    ``inconsistent`` for a consistency check).

    Parameters
    ----------
    claim_id : str
    preset : {"quick", "full"}
    seed : int
        Base seed.

    Returns
    -------
    str or None
        The verdict (``error`` with the wrong theory in place when the verify
        function raised); None when the claim declares no wrong theory.
    """
    found = get_claim(claim_id)
    if not found.wrong_theory:
        return None
    try:
        return run_claim(claim_id, preset, seed, theory=found.wrong).verdict
    except (Exception, SystemExit):
        return Verdict.ERROR


def run_claims(claim_ids: list[str] | None = None, preset: str = "quick",
               seed: int = 0, progress: Callable[[str], None] | None = None,
               wrong_theory: Collection[str] = (), jobs: int = 1,
               finished: Callable[[ClaimResult], None] | None = None) -> list[ClaimResult]:
    """Run the named claims (when None: every claim run by default) in registry order.

    A claim whose verify function raises gets the verdict ``error`` with the
    exception's message as its note; the other claims still run. Unknown ids,
    a bad preset or a bad seed are refused before anything runs. The claims
    named in ``wrong_theory`` also run with their wrong theory in place
    (:func:`wrong_theory_verdict`; ``ClaimResult.wrong_theory``).

    Parameters
    ----------
    claim_ids : list of str, optional
    preset : {"quick", "full"}
    seed : int
        The base seed.
    progress : callable, optional
        Called with each claim's id as it starts (in-process runs only).
    wrong_theory : collection of str
        Ids also run with their wrong theory.
    jobs : int
        Worker processes: with ``jobs > 1`` and several claims, the claims run across
        a process pool, each worker's BLAS and attndepth threads capped at its share
        of the cores (:func:`attndepth.simulations.threads.share_cores`). Each claim
        draws from its own seeds, so every verdict is the one of a single process; a
        number may differ in its last bit where BLAS sums with another thread count
        (measured: three values of ``naderi.spectral-gap``, relative 2e-16).
    finished : callable, optional
        Called with each result as its claim finishes (completion order).

    Returns
    -------
    list of ClaimResult
        In the order of ``claim_ids`` (registry order), whatever order they finished in.

    Raises
    ------
    ClaimsInterrupted
        Ctrl-C (a ``KeyboardInterrupt``): the workers are stopped at once, and the
        exception holds the results of the claims that had finished.
    """
    if claim_ids is not None and (isinstance(claim_ids, str)
                                  or not isinstance(claim_ids, Collection)):
        raise InvalidType(f"claim_ids must be a list of ids or None, got "
                          f"{type(claim_ids).__name__}")
    for name, function in (("progress", progress), ("finished", finished)):
        if function is not None and not callable(function):
            raise InvalidType(f"{name} must be a function or None, got "
                              f"{type(function).__name__}")
    if isinstance(wrong_theory, str) or not isinstance(wrong_theory, Collection):
        raise InvalidType(f"wrong_theory must be a collection of claim ids, got "
                          f"{type(wrong_theory).__name__}")
    jobs = check_int("jobs", jobs, minimum=1, maximum=MAX_JOBS)
    check_records()  # a damaged record is refused before any claim is measured
    ids = default_claims() if not claim_ids else list(claim_ids)
    for claim_id in ids:
        get_claim(claim_id)  # reject unknown ids before anything runs
    _check_run(preset, seed)
    tasks = [(claim_id, preset, seed, claim_id in wrong_theory) for claim_id in ids]
    if jobs > 1 and len(ids) > 1 and _workers_can_run(ids):
        return _run_in_pool(tasks, min(jobs, len(ids)), finished)
    results = []
    try:
        for task in tasks:
            if progress is not None:
                progress(task[0])
            results.append(_run_task(*task))
            if finished is not None:
                finished(results[-1])
    except KeyboardInterrupt:
        raise ClaimsInterrupted(results) from None
    return results


class ClaimsInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_claims`: the running claims were stopped at once (their
    workers terminated); ``results`` holds the claims that had finished, in registry
    order."""

    def __init__(self, results: list[ClaimResult]) -> None:
        super().__init__(f"interrupted after {len(results)} finished claims")
        self.results = results


#: The most worker processes ``run_claims`` starts.
MAX_JOBS = 256


def _run_task(claim_id: str, preset: str, seed: int, wrong: bool) -> ClaimResult:
    """One claim of :func:`run_claims` (in this process or a worker): an exception of its
    verify function is the verdict ``error``, never fatal to the run."""
    start = time.perf_counter()
    try:
        result = run_claim(claim_id, preset, seed)
        if wrong:
            result = replace(result, wrong_theory=wrong_theory_verdict(claim_id, preset,
                                                                       seed) or "none")
        return result
    except (Exception, SystemExit) as error:
        found = get_claim(claim_id)
        message = (str(error).splitlines()[0] if isinstance(error, UserCodeFailed)
                   else describe_exception(error))
        outcome = Outcome("(not evaluated)", "(raised)", Verdict.ERROR, message)
        return ClaimResult(found.id, found.source, found.statement, found.tolerance, preset,
                           seed, dict(found.presets[preset]), outcome,
                           time.perf_counter() - start, found.conjecture, kind=found.kind)


def _workers_can_run(ids: list[str]) -> bool:
    """Whether a fresh worker process finds every claim: a forked worker inherits the
    registry; another start method imports attndepth's claims and loads each user's
    claims from the source it was loaded from (:func:`claim_source`)."""
    import multiprocessing

    if multiprocessing.get_start_method() == "fork":
        return True
    return all(not is_users(get_claim(i)) or claim_source(i) is not None for i in ids)


def _start_worker(jobs: int, sources: tuple[str, ...], parent: int | None = None) -> None:
    from attndepth.simulations.threads import share_cores

    share_cores(jobs, parent)
    for source in sources:  # a spawned worker: the user's claims, as the caller loaded them
        if not any(claim_source(i) == source for i in _REGISTRY):
            load_claims(source)


def _run_in_pool(tasks: list[tuple[str, str, int, bool]], jobs: int,
                 finished: Callable[[ClaimResult], None] | None) -> list[ClaimResult]:
    from concurrent.futures import as_completed

    from attndepth.simulations.pools import process_pool

    sources = tuple(dict.fromkeys(source for task in tasks
                                  if (source := claim_source(task[0])) is not None))
    results: dict[int, ClaimResult] = {}
    with process_pool(jobs, _start_worker, (jobs, sources, os.getpid())) as pool:
        # the largest seed samples first, so that no long claim starts last and leaves
        # the other workers idle at the end (the results keep registry order)
        order = sorted(range(len(tasks)), key=lambda k: -_largest_sample(tasks[k][0]))
        futures = {pool.submit(_run_task, *tasks[k]): k for k in order}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if finished is not None:
                    finished(results[futures[future]])
        except KeyboardInterrupt:  # the pool stops its workers; the finished claims stay
            for future, k in futures.items():
                if k not in results and future.done() and not future.cancelled() \
                        and future.exception() is None:
                    results[k] = future.result()
            raise ClaimsInterrupted([results[k] for k in sorted(results)]) from None
    return [results[k] for k in range(len(tasks))]


def _largest_sample(claim_id: str) -> int:
    """The most seeds a claim's sample may reach (1 for a claim without an estimate)."""
    return max((estimate.seeds[1] for estimate in get_claim(claim_id).estimates), default=1)


#: Environment variable: the time limit of one call of a user's verify function (one
#: seed of one member), in seconds; :data:`DEFAULT_CLAIM_SECONDS` when unset.
CLAIM_SECONDS_VARIABLE = "ATTNDEPTH_CLAIM_SECONDS"
DEFAULT_CLAIM_SECONDS = 600.0


def claim_seconds() -> float:
    """The time limit of one call of a user's verify function: ``$ATTNDEPTH_CLAIM_SECONDS``
    (a number of seconds, > 0 and at most a day), or :data:`DEFAULT_CLAIM_SECONDS`.

    Raises
    ------
    InvalidParameter
        The variable is set to anything else.
    """
    from attndepth.environment import setting

    value = setting(CLAIM_SECONDS_VARIABLE)
    return DEFAULT_CLAIM_SECONDS if value is None else float(value)


def is_users(found: Claim) -> bool:
    """Whether a claim comes from a user's file or module, not from attndepth itself."""
    return not (found.module == "attndepth" or found.module.startswith("attndepth."))


def _sample(found: Claim, params: Mapping[str, Any]) -> Sample:
    """The claim's measurement of seeds at ``params``
    (:func:`attndepth.framework.evidence.sampler`), refusing a return value that is
    not an Outcome (a user's claim returning None, a string or a dict: one clear
    error, not a traceback from the report), the missing keys of its estimates, and
    non-finite numbers where they are compared.

    A user's verify function is contained (:func:`attndepth.sandbox.user_code`):
    whatever it raises, ``sys.exit`` included, is one
    :class:`~attndepth.errors.UserCodeFailed` naming the claim, and each call may run
    :func:`claim_seconds` at most. attndepth's own claims raise as they are (a bug
    of theirs is an internal error)."""
    limit = claim_seconds() if is_users(found) else None

    def call(**kwargs: Any) -> Any:
        if limit is None:
            returned = found.verify(**kwargs)
        else:
            with user_code(f"claim {found.id!r}", limit):
                # what the user's code returned is read here, inside the containment: a
                # sample whose __len__ raises, a value whose __float__ raises, is the claim's
                returned = plain_return(found.verify(**kwargs), "seed_sample" in kwargs)
        seed_done(found.id)
        return returned

    measured = sampler(call, params, verify_form(found.verify))

    def run(seeds: tuple[int, ...], theory: Theory, shown: bool = True) -> list[Outcome]:
        outcomes = measured(seeds, theory, shown)
        for outcome in outcomes:
            _check_outcome(found, outcome)
        return outcomes
    return run


def plain_return(returned: Any, batched: bool) -> Any:
    """What a user's verify function returned, as plain data: a batched return as a list,
    each Outcome with text fields and plain values (:func:`_plain`). Called inside the
    user's containment (:func:`attndepth.sandbox.user_code`), so that whatever the user's
    objects raise when read (``__len__``, ``__iter__``, ``__float__``, ``__str__``) is
    the claim's failure, the same on every path (verify, search, map, the plugin, the
    pool); a return that is not an Outcome is left for :func:`_check_outcome` to refuse."""
    if batched and not isinstance(returned, (str, bytes)) and hasattr(returned, "__len__"):
        returned = list(returned)
        return [_plain_outcome(outcome) for outcome in returned]
    return _plain_outcome(returned)


def _plain_outcome(outcome: Any) -> Any:
    if type(outcome) is not Outcome:
        return outcome
    values = {str(key): _plain(value, 0) for key, value in dict(outcome.values).items()}
    return Outcome(str(outcome.predicted), str(outcome.measured), outcome.verdict,
                   str(outcome.note), values)


#: How deep :func:`_plain` follows lists and dicts in a user's values.
_PLAIN_DEPTH = 8


def _plain(value: Any, depth: int) -> Any:
    """``value`` with numbers read as Python numbers and containers as lists and dicts."""
    if depth > _PLAIN_DEPTH:
        raise InvalidParameter(f"Outcome.values is nested deeper than {_PLAIN_DEPTH} levels")
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {str(key): _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item, depth + 1) for item in value)
    if isinstance(value, np.integer):
        return int(value)
    if hasattr(value, "__float__"):
        return float(value)
    return value


def _check_outcome(found: Claim, outcome: Any) -> None:
    """One outcome of the claim's verify function, refused unless usable (see
    :func:`_sample`)."""
    if not isinstance(outcome, Outcome):
        raise InvalidType(f"claim {found.id!r}: its verify function returned "
                          f"{type(outcome).__name__}, not an Outcome (return "
                          f"attndepth.Outcome(predicted, measured, verdict, ...))")
    if outcome.verdict in DECIDED:
        missing = [key for e in found.estimates
                   for key in (e.measured, e.predicted, e.decidable)
                   if key is not None and key not in outcome.values]
        if missing:
            raise InvalidParameter(f"claim {found.id!r}: its estimate reads "
                                   f"Outcome.values {sorted(set(missing))}, which the "
                                   f"verify function did not return")
        for estimate in found.estimates:
            if (estimate.decidable is not None
                    and not isinstance(outcome.values[estimate.decidable], (bool, np.bool_))):
                raise InvalidType(f"claim {found.id!r}: Outcome.values"
                                  f"[{estimate.decidable!r}] (the estimate's decidable) must "
                                  f"be True or False, got "
                                  f"{type(outcome.values[estimate.decidable]).__name__}")
        if is_users(found):
            _refuse_non_finite(found, outcome)


def _refuse_non_finite(found: Claim, outcome: Outcome) -> None:
    """A user's estimate compares a NaN or an infinite number (or text): an error naming
    the value, never an ``inconclusive`` verdict drawn from what is left."""
    for estimate in found.estimates:
        for key in (estimate.measured, estimate.predicted):
            try:
                numbers = np.asarray(outcome.values[key], dtype=float)
            except (TypeError, ValueError):
                raise UserCodeFailed(f"claim {found.id!r}: Outcome.values[{key!r}] is not a "
                                     f"number or a list of numbers") from None
            bad = numbers.ravel()[~np.isfinite(numbers.ravel())]
            if bad.size:
                raise UserCodeFailed(f"claim {found.id!r}: Outcome.values[{key!r}] holds "
                                     f"{bad[0]}; a prediction or measurement must be finite")


def verdict_from(condition: bool, inconclusive: bool = False) -> Verdict:
    """``holds`` / ``fails``, or ``inconclusive`` when the test could not decide."""
    if inconclusive:
        return Verdict.INCONCLUSIVE
    return Verdict.HOLDS if condition else Verdict.FAILS


def _where(function: Callable[..., Any]) -> str:
    """``path:line  module.qualname`` of a function (path relative to the cwd if below it)."""
    target = inspect.unwrap(function)
    try:
        path = Path(inspect.getsourcefile(target) or "?")
        line = inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        path, line = Path("?"), 0
    try:
        path = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    return f"{path}:{line}  {target.__module__}.{target.__qualname__}"


def explain(claim_id: str) -> str:
    """Every place that makes up a claim, one per line (``attndepth verify --explain``).

    Parameters
    ----------
    claim_id : str
        A registered id.

    Returns
    -------
    str
        Statement, source, tolerance, presets, and the file, line and
        qualified name of its verify, theory and simulation functions, its
        test, its figure and its wrong theory.
    """
    found = get_claim(claim_id)
    lines = [f"{found.id}{'  (conjecture)' if found.conjecture else ''}",
             f"  statement   {found.statement}",
             f"  source      {found.source}",
             f"  tolerance   {found.tolerance}",
             f"  verify      {_where(found.verify)}"]
    for k, (name, value) in enumerate(found.theory.items()):
        where = (_where(value) if callable(value) and name == getattr(value, "__name__", "")
                 else f"{name} = {_short(value)}")
        lines.append(f"  {'theory' if k == 0 else '':<11} {where}")
    for k, function in enumerate(found.simulation):
        lines.append(f"  {'simulation' if k == 0 else '':<11} {_where(function)}")
    lines.append(f"  test        {found.test or '(registry test only)'}")
    if found.figure:
        from attndepth.figures.registry import all_figures, check_figure_name

        check_figure_name(found.figure, found.id)
        module = all_figures()[found.figure]
        lines.append(f"  figure      {_where(module.compute).split(':')[0]}  "
                     f"(attndepth figures --only {found.figure})")
    wrong = ", ".join(f"{name} = {_short(value)}" for name, value in found.wrong_theory.items())
    lines.append(f"  wrong       {wrong or '(none)'}  -> verdict must be fails")
    for rival in found.rivals:
        lines.append(f"  rival       {rival.name}  ({rival.source})")
    for e in found.estimates:
        lines.append(f"  estimate    {e.label}: {e.measured} against {e.predicted}, band "
                     f"{list(e.band)}, seeds {e.seeds[0]}..{e.seeds[1]}, "
                     f"α = {1 - e.confidence:.2g}")
    if found.family is not None:
        lines.append(f"  family      {found.family.describe()}")
    lines.append(f"  kind        {found.kind}")
    for preset, params in found.presets.items():
        shown = ", ".join(f"{k}={_short(v)}" for k, v in params.items())
        lines.append(f"  {preset:<11} {shown}")
    return "\n".join(lines)


def _short(value: Any, limit: int = 70) -> str:
    """A value as one short line; a lambda as its source text."""
    text = getattr(value, "__qualname__", None) or repr(value)
    if text == "<lambda>":
        try:
            source = inspect.getsource(value)
            text = source[source.index("lambda"):].strip()
            while text and (text[-1] in "},\n " or text.count(")") > text.count("(")):
                text = text[:-1]
        except (OSError, TypeError, ValueError):
            pass
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
