"""Running one claim: its parameters and base seed checked, its measurement contained
(a user's code under a time limit, its return checked), its verdict and what is known of
its family joined into a :class:`~attndepth.framework.results.ClaimResult`."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from attndepth.errors import (
    InvalidParameter,
    InvalidType,
)
from attndepth.framework.deciding import to_decide
from attndepth.framework.declarations import MAX_BASE_SEED
from attndepth.framework.domain import known_domain
from attndepth.framework.evidence import Evidence, RivalResult
from attndepth.framework.judge import judge_claim, judged
from attndepth.framework.model import PRESETS, Claim, Outcome
from attndepth.framework.progress import seed_done
from attndepth.framework.registry import get_claim, is_users
from attndepth.framework.results import ClaimResult
from attndepth.framework.returns import check_outcome, plain_return
from attndepth.framework.sampling import Sample, sampler, verify_form
from attndepth.framework.theories import Theory
from attndepth.framework.verdicts import Verdict
from attndepth.sandbox import user_code


def check_run(preset: str, seed: int) -> None:
    if preset not in PRESETS:
        raise InvalidParameter(f"preset must be one of {', '.join(PRESETS)}; got {preset!r}")
    check_base_seed(seed)


def check_base_seed(seed: object) -> int:
    """A base seed: an integer from 0 to :data:`~attndepth.framework.declarations.MAX_BASE_SEED`
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
    check_run(preset, seed)
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
    deciding = to_decide(outcome.judgement, evidence, found.estimates, found.rivals, seconds,
                         outcome.values)
    return ClaimResult(claim=found, preset=preset, seed=seed, params=params, outcome=outcome,
                       seconds=seconds, evidence=evidence, rivals=rivals, in_family=in_family,
                       domain=domain, to_decide=deciding)


def evaluate(found: Claim, seed: int, params: Mapping[str, Any],
             theory: Theory | None = None,
             ) -> tuple[Outcome, Evidence | None, tuple[RivalResult, ...]]:
    """Decide one claim at one parameter set: the verdict, its evidence and its rivals.

    A member its family marks undecidable is not measured; any other is judged
    (:func:`attndepth.framework.judge.judge_claim`) on the claim's contained
    measurement (:func:`_sample`). Exceptions of the verify function propagate.

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
    return judge_claim(found, _sample(found, params), seed, params, theory)


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


def _sample(found: Claim, params: Mapping[str, Any]) -> Sample:
    """The claim's measurement of seeds at ``params``
    (:func:`attndepth.framework.sampling.sampler`), refusing a return value that is
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
            check_outcome(found, outcome)
        return [judged(found, outcome) for outcome in outcomes]
    return run
