"""Where a claim lives: ``attndepth verify --explain ID``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attndepth.framework.registry import get_claim


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
    from attndepth.framework.resolving import recorded_powers

    for k, power in enumerate(recorded_powers().get(found.id, [])):
        lines.append(f"  {'resolving' if k == 0 else '':<11} {power.describe()}"
                     + ("  (quick preset, base seed 0)" if k == 0 else ""))
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
