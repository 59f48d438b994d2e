"""Every registered figure, and writing one as PDF, PNG and the CSV of its data."""

from __future__ import annotations

import csv
import importlib
from pathlib import Path
from types import ModuleType

import matplotlib.pyplot as plt

from attndepth.errors import InvalidParameter

FIGURE_MODULES: tuple[str, ...] = (
    "attndepth.figures.similarity_depth",
    "attndepth.figures.allocation",
    "attndepth.figures.separation_rank",
    "attndepth.figures.threshold_knee",
    "attndepth.figures.fixed_rate",
    "attndepth.figures.postln_rate",
    "attndepth.figures.dong_collapse",
    "attndepth.figures.geshkovski_orthogonal",
    "attndepth.figures.geshkovski_cluster",
    "attndepth.figures.naderi_spectral_gap",
    "attndepth.figures.noci_residual_scaling",
    "attndepth.figures.giorlandino_correlation_map",
    "attndepth.figures.wu_masks",
)
PRESETS: tuple[str, ...] = ("quick", "full")


def all_figures() -> dict[str, ModuleType]:
    """Figure modules by NAME. Each has NAME, DESCRIPTION, compute(preset, seed), draw(data)."""
    modules = [importlib.import_module(name) for name in FIGURE_MODULES]
    return {module.NAME: module for module in modules}


def write_csv(data: dict[str, list], path: Path) -> None:
    """Columns of equal length as a CSV with a header row."""
    lengths = {len(column) for column in data.values()}
    if len(lengths) > 1:
        raise InvalidParameter(f"figure data columns differ in length: {lengths}")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(data)
        writer.writerows(zip(*data.values(), strict=True))


def save(figure, data: dict[str, list], name: str, out_dir: Path) -> list[Path]:
    """Write a drawn figure as PDF and PNG and its data as CSV; returns the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{name}.{ext}" for ext in ("pdf", "png", "csv")]
    figure.savefig(paths[0])
    figure.savefig(paths[1], dpi=300)
    plt.close(figure)
    write_csv(data, paths[2])
    return paths


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
    data = module.compute(preset, seed)
    return save(module.draw(data), data, name, out_dir)
