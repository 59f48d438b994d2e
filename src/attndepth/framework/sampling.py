"""How a claim's verify function is called on a sample of seeds: the forms it may take
(``seed`` or ``seed_sample``, ``theory``, ``shown``) and the :data:`Sample` that calls it."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol

from attndepth.errors import InvalidType
from attndepth.framework.theories import Theory


class Sample(Protocol):
    """A claim's measurement of seeds: ``run(seeds, theory, shown=True) -> [Outcome, ...]``,
    one outcome per seed, in the order of ``seeds``; with ``shown`` the first seed's
    outcome is the one a report shows (:func:`verify_form`), without it none is."""

    def __call__(self, seeds: tuple[int, ...], theory: Theory,
                 shown: bool = True) -> list[Any]: ...


#: The arguments the framework itself passes to a verify function: never a parameter
#: of a preset or a family.
FRAMEWORK_ARGUMENTS = frozenset({"seed", "seed_sample", "theory", "shown"})


class VerifyForm(NamedTuple):
    """How a verify function takes its seeds, its theory and ``shown``."""

    batched: bool
    takes_theory: bool
    takes_shown: bool = False


def verify_form(verify: Callable[..., Any]) -> VerifyForm:
    """How a verify function takes its seeds, its theory and ``shown``.

    Parameters
    ----------
    verify : callable
        ``verify(seed, [theory,] [shown,] **params) -> Outcome`` (one seed a call), or
        ``verify(seed_sample, [theory,] [shown,] **params) -> [Outcome, ...]`` (a
        whole sample a call, as a tuple of seeds: one outcome per seed, in order).
        ``shown`` (a bool) is True when the outcome of the call's (first) seed is the
        one the report shows — its note, measured text and values — and False for
        every other seed of a sample and for the reruns of rivals, of which only the
        verdict and the values that estimates and rivals read are used: a verify
        function may skip there what only its note reports.

    Returns
    -------
    VerifyForm
        (batched, takes_theory, takes_shown).

    Raises
    ------
    InvalidType
        ``verify`` takes neither ``seed`` nor ``seed_sample`` (nor ``**kwargs``), or
        both.
    """
    try:
        parameters = inspect.signature(verify).parameters
    except (TypeError, ValueError):
        raise InvalidType(f"verify function {verify!r} has no signature to read") from None
    if "seed" in parameters and "seed_sample" in parameters:
        raise InvalidType("a verify function takes seed (one a call) or seed_sample (a "
                          "sample a call), not both")
    any_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    if "seed" not in parameters and "seed_sample" not in parameters and not any_keyword:
        raise InvalidType("a verify function must take seed (one seed a call) or "
                          "seed_sample (a sample of seeds a call)")
    return VerifyForm("seed_sample" in parameters, "theory" in parameters,
                      "shown" in parameters)


def sampler(verify: Callable[..., Any], params: Mapping[str, Any],
            form: VerifyForm | None = None) -> Sample:
    """The :data:`Sample` of a verify function at one parameter set.

    Parameters
    ----------
    verify : callable
        Either form of :func:`verify_form`; it receives ``theory`` only if it
        takes it.
    params : mapping
        Keyword arguments of every call.
    form : VerifyForm, optional
        The form of ``verify`` when its signature does not show it (a wrapper);
        default: :func:`verify_form` of ``verify``.

    Returns
    -------
    Sample
        ``run(seeds, theory, shown=True)``: a batched verify function is called once
        for the seeds, a per-seed one once for each; with ``shown`` the first seed's
        outcome is the one shown (a verify function that takes ``shown`` learns it).
    """
    batched, takes_theory, takes_shown = verify_form(verify) if form is None else form

    def run(seeds: tuple[int, ...], theory: Theory, shown: bool = True) -> list[Any]:
        kwargs = {**params, **({"theory": theory} if takes_theory else {})}
        if not batched:
            return [verify(seed=seed, **kwargs,
                           **({"shown": shown and k == 0} if takes_shown else {}))
                    for k, seed in enumerate(seeds)]
        outcomes = verify(seed_sample=tuple(seeds), **kwargs,
                          **({"shown": shown} if takes_shown else {}))
        if isinstance(outcomes, (str, bytes)) or not hasattr(outcomes, "__len__") \
                or len(outcomes) != len(seeds):
            raise InvalidType(f"a verify function that takes seed_sample must return one outcome "
                              f"per seed ({len(seeds)}), got {type(outcomes).__name__}")
        return list(outcomes)
    return run
