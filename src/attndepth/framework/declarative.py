"""The common case in a few lines: a SymPy prediction against a catalogued observable.

Most derivations predict one number (a rate, a limit, a slope) as an
expression in the members' parameters, to be compared with an observable of
the stack within a relative tolerance. :func:`derived_claim` takes exactly
that — the expression, the observable's name
(:data:`attndepth.simulations.measures.catalogue.OBSERVABLES`), a function from
the member's parameters to the stack, a family, presets and a tolerance — and
registers everything a hand-written claim has: the verify function, an
:class:`~attndepth.framework.declarations.Estimate` over a sample of seeds, named
rivals (expressions too), a wrong theory, and a figure of the measurement
against the prediction along the family's first parameter. ``attndepth verify
--claims``, ``--search``, ``attndepth map`` and ``attndepth figures --claims``
then work on it unchanged::

    from attndepth import Family, StackConfig
    from attndepth.framework.declarative import derived_claim
    import sympy as sp

    d = sp.Symbol("width", positive=True)

    @derived_claim("mine.rate", expression=sp.log(2 - 1 / d) - 3 / (4 * d),
                   observable="log_odds_slope", tolerance=0.02,
                   source="my notes, eq. 3", statement="...",
                   family=Family(parameters={"width": (32, 64)}),
                   presets={"quick": {"width": 64}, "full": {"width": 128}},
                   rivals={"ln 2": (sp.log(2), "the d → ∞ limit")},
                   wrong=sp.Float(0.5))
    def stack(width):
        return StackConfig(variant="post-ln", depth=96, tokens=16, width=width)

The expression's free symbols are matched to the parameters by name; every
parameter of the family (and ``fixed``) that ``stack`` takes builds the stack.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.framework.declarations import Estimate, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.simulations.measures.catalogue import OBSERVABLES, measure
from attndepth.simulations.models.stacks import StackConfig
from attndepth.validation import check_int

#: Stacks a member measures per seed unless told otherwise.
DEFAULT_BATCH = 16


def _prediction(expression: Any, parameters: set[str], what: str) -> Callable[..., float]:
    """The expression as a function of keyword parameters, or one clear error."""
    try:
        expression = sp.sympify(expression)
    except (sp.SympifyError, TypeError, ValueError, SyntaxError) as error:
        raise InvalidType(f"{what} must be a SymPy expression: {error}") from None
    if not isinstance(expression, sp.Expr):
        raise InvalidType(f"{what} must be a SymPy expression, got {type(expression).__name__}")
    names = sorted(str(symbol) for symbol in expression.free_symbols)
    unknown = [name for name in names if name not in parameters]
    if unknown:
        raise InvalidParameter(f"{what} uses {unknown}, which are not parameters of the "
                               f"family or its fixed values ({sorted(parameters)})")
    function = sp.lambdify([sp.Symbol(name) for name in names], expression, modules="math")

    def predict(**params: Any) -> float:
        return float(function(*(params[name] for name in names)))
    return predict


def derived_claim(id: str, *, expression: Any, observable: str, source: str,
                  statement: str, family: Family,
                  presets: Mapping[str, Mapping[str, Any]], tolerance: float,
                  rivals: Mapping[str, tuple[Any, str]] | None = None, wrong: Any = None,
                  batch: int = DEFAULT_BATCH, seeds: tuple[int, int] = (4, 16),
                  figure: bool = True, conjecture: bool = False
                  ) -> Callable[[Callable[..., StackConfig]], Callable[..., StackConfig]]:
    """Register a claim "observable ≈ expression within ``tolerance``" on a stack.

    Parameters
    ----------
    id, source, statement, conjecture
        As for :func:`attndepth.framework.registry.claim`.
    expression : SymPy expression
        The prediction; its free symbols are family parameters (or ``fixed``).
    observable : str
        A name of the catalogue (:mod:`attndepth.simulations.measures.catalogue`).
    family : Family
        The statement's domain; ``fixed`` values reach the stack function too.
    presets : {"quick": {...}, "full": {...}}
        Members (parameter values) run by ``attndepth verify``; the family's
        ``fixed`` values are added.
    tolerance : float
        The allowed relative error of the seed's mean, |m/p − 1|: the
        estimate's band is ±tolerance and its 99 % interval decides.
    rivals : {name: (expression, source)}
        Plausible alternative predictions; each must be rejected for ``holds``.
    wrong : SymPy expression, optional
        A wrong prediction the claim must fail with (``wrong_theory``).
    batch : int
        Stacks per seed (>= 2).
    seeds : (int, int)
        The estimate's smallest and largest seed sample.
    figure : bool
        Also register a figure named ``id`` (measurement and prediction along
        the family's first parameter).

    Returns
    -------
    The decorator: it takes ``stack(**params) -> StackConfig`` and returns it.
    """
    if not isinstance(observable, str):
        raise InvalidType(f"claim {id!r}: observable must be a name of the catalogue, got "
                          f"{observable!r}")
    if observable not in OBSERVABLES:
        measure(observable, StackConfig(), 1, 0)  # raises the did-you-mean error
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
            or not 0 < tolerance < 1:
        raise InvalidParameter(f"claim {id!r}: tolerance must be a relative error in (0, 1), "
                               f"got {tolerance!r}")
    if not isinstance(family, Family):
        raise InvalidType(f"claim {id!r}: family must be a Family")
    batch = check_int("batch", batch, minimum=2)  # two stacks at least: a standard error
    if not (isinstance(seeds, tuple) and len(seeds) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) for n in seeds)):
        raise InvalidType(f"claim {id!r}: seeds must be (first, last) integers, got {seeds!r}")
    rivals = {} if rivals is None else rivals
    if not isinstance(rivals, Mapping) or not all(
            isinstance(name, str) and isinstance(entry, tuple) and len(entry) == 2
            and isinstance(entry[1], str) for name, entry in rivals.items()):
        raise InvalidType(f"claim {id!r}: rivals must map a name to (expression, source), got "
                          f"{rivals!r}")
    parameters = set(family.parameters) | set(family.fixed)
    predict = _prediction(expression, parameters, f"claim {id!r}: the expression")
    rival_functions = {name: (_prediction(rival, parameters, f"claim {id!r}: rival {name!r}"),
                              text) for name, (rival, text) in rivals.items()}
    wrong_function = (None if wrong is None else
                      _prediction(wrong, parameters, f"claim {id!r}: the wrong theory"))

    def register(stack: Callable[..., StackConfig]) -> Callable[..., StackConfig]:
        if not callable(stack):
            raise InvalidType(f"claim {id!r}: decorate a function params -> StackConfig")
        takes = set(inspect.signature(stack).parameters)

        def verify(seed: int, theory: Theory, **params: Any) -> Outcome:
            config = stack(**{key: value for key, value in params.items() if key in takes})
            if not isinstance(config, StackConfig):
                raise InvalidType(f"claim {id!r}: its stack function returned "
                                  f"{type(config).__name__}, not a StackConfig")
            values = measure(observable, config, batch, seed)
            predicted = theory.prediction(**params)
            mean = float(values.mean())
            error = float(np.std(values, ddof=1) / math.sqrt(batch))
            relative = mean / predicted - 1 if predicted else math.inf  # for the text
            rival_values = {f"rival:{key}": function(**params)
                            for key, (function, _) in rival_functions.items()}
            return Outcome(f"{observable} {predicted:.4g}",
                           f"{observable} {mean:.4g} ± {error:.2g} ({relative:+.2%})",
                           note=f"{batch} stacks; {OBSERVABLES[observable].description}",
                           values={"measured": mean, "predicted": predicted,
                                   "standard_error": error, **rival_values})

        signature = [inspect.Parameter("seed", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                     inspect.Parameter("theory", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        signature += [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY)
                      for key in sorted(parameters)]
        verify.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
        verify.__module__ = stack.__module__
        verify.__qualname__ = verify.__name__ = stack.__name__
        verify.__doc__ = f"{observable} of the stack of {stack.__name__} against the expression."
        claim(id, source=source, statement=statement,
              presets={key: {**family.fixed, **value} for key, value in presets.items()},
              family=family, conjecture=conjecture,
              estimate=Estimate("measured", "predicted", (-tolerance, tolerance),
                                seeds=seeds, label=f"relative error of {observable}",
                                quantity=observable),
              rivals=tuple(Rival(key, text, predicted=_rival_value(key))
                           for key, (_, text) in rival_functions.items()),
              theory=Theory(prediction=predict),
              wrong_theory=({} if wrong_function is None else {"prediction": wrong_function}),
              figure=id if figure else None)(verify)
        if figure:
            _register_figure(id, observable, stack, takes, family, presets, batch, predict,
                             rival_functions)
        return stack

    return register


def _rival_value(key: str) -> Callable[[Mapping[str, Any], Any], Any]:
    """Read rival ``key``'s prediction from an outcome's values."""
    def read(values: Mapping[str, Any], params: Any) -> Any:
        return values[f"rival:{key}"]
    return read


def _register_figure(id: str, observable: str, stack: Callable[..., StackConfig],
                     takes: set[str], family: Family, presets: Mapping[str, Mapping[str, Any]],
                     batch: int, predict: Callable[..., float],
                     rivals: Mapping[str, tuple[Callable[..., float], str]]) -> None:
    from attndepth.figures.registry import figure as register_figure

    axis = next(iter(family.parameters))

    def compute(preset: str, seed: int) -> dict[str, list]:
        columns: dict[str, list] = {key: [] for key in (axis, "measured", "standard_error",
                                                        "predicted", *rivals)}
        for value in family.parameters[axis]:
            params = {**family.fixed, **presets[preset], axis: value}
            config = stack(**{key: v for key, v in params.items() if key in takes})
            values = measure(observable, config, batch, seed)
            columns[axis].append(value)
            columns["measured"].append(float(values.mean()))
            columns["standard_error"].append(float(np.std(values, ddof=1) / math.sqrt(batch)))
            columns["predicted"].append(predict(**params))
            for key, (function, _) in rivals.items():
                columns[key].append(function(**params))
        return columns

    def draw(data: dict[str, list]):
        from attndepth.figures.style import PALETTE, new_figure

        fig, ax = new_figure()
        x = data[axis]
        ax.errorbar(x, data["measured"], yerr=2 * np.asarray(data["standard_error"]), fmt="o",
                    color=PALETTE[0], label="measured (mean ± 2 SE)")
        ax.plot(x, data["predicted"], "-", color=PALETTE[1], label="derived")
        for k, key in enumerate(rivals):
            ax.plot(x, data[key], ":", color=PALETTE[2 + k % (len(PALETTE) - 2)], label=key)
        ax.set_xlabel(axis)
        ax.set_ylabel(observable.replace("_", " "))
        ax.legend()
        return fig

    register_figure(id, description=f"{id}: {observable} against {axis}, measured and "
                                    f"derived", draw=draw)(compute)
