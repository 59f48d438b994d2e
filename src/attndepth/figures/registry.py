"""Every registered figure, and writing one as PDF, PNG and the CSV of its data."""

from __future__ import annotations

import csv
import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.figures.style import PNG_DPI
from attndepth.sandbox import user_code
from attndepth.simulations.output_files import (
    CSV_TABLE,
    PDF,
    PNG,
    OutputFile,
    output_file,
    output_folder,
)

#: The package whose modules hold the built-in figures.
BUILT_IN_FIGURES = "attndepth.figures"


@functools.cache
def built_in_figure_modules() -> tuple[ModuleType, ...]:
    """The built-in figures, found (not listed): every module of :data:`BUILT_IN_FIGURES`
    with a ``NAME``, ``compute(preset, seed)`` and ``draw(data)``, in the order of the
    theory document (each declares ``SECTION``, its section and place)."""
    package = importlib.import_module(BUILT_IN_FIGURES)
    modules = [importlib.import_module(f"{BUILT_IN_FIGURES}.{info.name}")
               for info in pkgutil.iter_modules(package.__path__)
               if not info.name.startswith("_")]
    figures = [module for module in modules
               if all(hasattr(module, name) for name in ("NAME", "compute", "draw"))]
    return tuple(sorted(figures, key=lambda module: (module.SECTION, module.NAME)))
PRESETS: tuple[str, ...] = ("quick", "full")


def all_figures() -> dict[str, ModuleType | UserFigure]:
    """Figures by NAME: the built-in modules, then the user's (:func:`figure`).

    Each has NAME, DESCRIPTION, compute(preset, seed) and draw(data).
    """
    return {**{module.NAME: module for module in built_in_figure_modules()}, **_USER_FIGURES}


@dataclass(frozen=True)
class UserFigure:
    """A figure registered with :func:`figure`: the interface of a figure module."""

    NAME: str
    DESCRIPTION: str
    compute: Callable[[str, int], dict[str, list]]
    draw_function: Callable[[dict[str, list]], Any]

    def draw(self, data: dict[str, list]):
        """The user's drawing in the house style (``paper.mplstyle``); must return a Figure."""
        from matplotlib.figure import Figure

        from attndepth.figures.style import RC_PARAMS

        with matplotlib.rc_context(RC_PARAMS), user_code(f"figure {self.NAME!r}'s draw "
                                                         f"function"):
            drawn = self.draw_function(data)
        if not isinstance(drawn, Figure):
            raise InvalidType(f"figure {self.NAME!r}: its draw function returned "
                              f"{type(drawn).__name__}, not a matplotlib Figure (return fig "
                              f"from fig, ax = plt.subplots())")
        return drawn


_USER_FIGURES: dict[str, UserFigure] = {}


def figure(name: str, *, description: str,
           draw: Callable[[dict[str, list]], Any]) -> Callable[[Callable], Callable]:
    """Register a figure beside your claims; ``attndepth figures --claims FILE`` draws it.

    Decorate its ``compute(preset, seed) -> {column: list}`` (columns of equal
    length: they are also written as NAME.csv); ``draw(data)`` returns a
    matplotlib Figure and runs in the house style (journal widths come from
    :func:`attndepth.figures.style.new_figure`). Name a claim's figure with
    ``claim(..., figure=name)``.

    Parameters
    ----------
    name : str
        Unique among the figures (built-in and registered).
    description : str
        One line for ``attndepth figures --list``.
    draw : callable
        ``draw(data) -> matplotlib.figure.Figure``.

    Returns
    -------
    The decorator; it returns ``compute`` unchanged.
    """
    if not isinstance(name, str) or not name:
        raise InvalidType(f"a figure's name must be a non-empty string, got {name!r}")
    if not isinstance(description, str) or not callable(draw):
        raise InvalidType(f"figure {name!r}: description must be a string and draw callable")

    def register(compute: Callable) -> Callable:
        if not callable(compute):
            raise InvalidType(f"figure {name!r}: decorate its compute(preset, seed) function")
        taken = {module.NAME for module in built_in_figure_modules()}
        existing = _USER_FIGURES.get(name)
        if name in taken or (existing is not None
                             and existing.compute.__qualname__ != compute.__qualname__):
            raise InvalidParameter(f"figure name {name!r} is taken; choose another")
        _USER_FIGURES[name] = UserFigure(name, description, compute, draw)
        return compute

    return register


def check_figure_name(name: str, owner: str) -> None:
    """One clear error when a claim names a figure nobody registered."""
    known = all_figures()
    if name not in known:
        import difflib

        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise InvalidParameter(f"claim {owner!r} names figure {name!r}, which is not "
                               f"registered{hint}: register it with @attndepth.figure(...) "
                               f"in the claims file, or drop figure=")


def write_csv(data: dict[str, list], path: Path | OutputFile) -> None:
    """Columns of equal length as a CSV with a header row, written whole (a file there
    that is not a CSV table is refused)."""
    lengths = {len(column) for column in data.values()}
    if len(lengths) > 1:
        raise InvalidParameter(f"figure data columns differ in length: {lengths}")
    output = path if isinstance(path, OutputFile) else output_file(path, CSV_TABLE)
    with output.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(data)
        writer.writerows(zip(*data.values(), strict=True))


def figure_files(name: str, out_dir: Path) -> tuple[OutputFile, OutputFile, OutputFile]:
    """The PDF, PNG and CSV of figure ``name`` in ``out_dir``, checked before the figure
    is computed: each may replace only a file attndepth wrote there, unchanged since
    (:func:`attndepth.simulations.output_files.output_folder`), never a link."""
    folder = output_folder(out_dir)
    return (folder.file(f"{name}.pdf", PDF), folder.file(f"{name}.png", PNG),
            folder.file(f"{name}.csv", CSV_TABLE))


def save(figure, data: dict[str, list], name: str, out_dir: Path) -> list[Path]:
    """Write a drawn figure as PDF and PNG and its data as CSV, each whole; returns the
    paths.

    Raises
    ------
    InvalidParameter
        A file there is not an earlier one of its kind (left untouched).
    OutputFailed
        The disk failed (CLI exit 3); each file is whole, the new one or the old one.
    """
    pdf, png, table = figure_files(name, out_dir)
    try:
        with pdf.open("wb") as handle:
            figure.savefig(handle, format="pdf")
        with png.open("wb") as handle:
            figure.savefig(handle, format="png", dpi=PNG_DPI)
    finally:
        plt.close(figure)
    write_csv(data, table)
    return [pdf.path, png.path, table.path]


def write_store_figure(store: Path, out_dir: Path) -> list[Path]:
    """The figures of a sweep store (``attndepth figures --store``): t_sim against depth for
    a similarity sweep; for a training sweep, loss and final t_sim against depth and t_sim
    during training (rows of a width, Experiment A) and loss against depth at fixed budgets
    (rows of a budget, Experiment B)."""
    from attndepth.figures import (
        sweep_similarity,
        sweep_training,
        sweep_training_curves,
        sweep_transition,
    )
    from attndepth.simulations.sweeps.store import finished_rows

    rows = [row for row in finished_rows(store) if row["measurement"] == "train"]
    if not rows:
        modules = [sweep_similarity]
    else:
        budgets = {bool(row["config"].get("budget")) for row in rows}
        curves = any("t_sim_curves" in row["metrics"] for row in rows
                     if not row["config"].get("budget"))
        modules = []
        if False in budgets:  # rows of a width: Experiment A
            modules += [sweep_training] + ([sweep_training_curves] if curves else [])
        if True in budgets:  # rows of a budget: Experiment B
            modules.append(sweep_transition)
    for module in modules:  # every file checked before anything is computed
        figure_files(module.NAME, out_dir)
    paths = []
    for module in modules:
        data = module.compute_from_store(store)
        paths += save(module.draw(data), data, module.NAME, out_dir)
    return paths


def write_figure(name: str, out_dir: Path, preset: str = "quick", seed: int = 0) -> list[Path]:
    """Compute, draw and save one figure; returns the written paths (pdf, png, csv)."""
    figures = all_figures()
    if name not in figures:
        raise InvalidParameter(f"unknown figure {name!r}; known: {', '.join(figures)}")
    if preset not in PRESETS:
        raise InvalidParameter(f"preset must be one of {', '.join(PRESETS)}; got {preset!r}")
    module = figures[name]
    figure_files(name, out_dir)  # a refusal before the computation, not after
    if isinstance(module, UserFigure):  # a user's function: contained
        with user_code(f"figure {name!r}'s compute function"):
            data = module.compute(preset, seed)
    else:
        data = module.compute(preset, seed)
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, (list, tuple, np.ndarray))
            for k, v in data.items()):
        raise InvalidType(f"figure {name!r}: compute(preset, seed) must return a dict of "
                          f"named columns (lists), got {type(data).__name__}")
    return save(module.draw(data), data, name, out_dir)
