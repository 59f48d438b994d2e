"""Real architectures against the laws derived from their configurations (theory document
§5, "The architectures people build: the laws from their configurations").

Six panels: (a) post-norm and (b) pre-norm models — the measured mean log-odds slope
(rise over the blocks followed, divided by their number; mean over models with its 99 %
interval) against the slope derived from each model's configuration, one marker per
architecture, σ and width, and the unit-scale rate of the same model as a grey cross at
the same height; (c) GPT-2's and LLaMA's log-odds against depth, measured (median over
models, 10–90 % band) and derived (dotted); (d)–(f) the validity maps of the
derivations over (σ, d) for BERT, GPT-2 and LLaMA: the mean relative error of the rise,
each cell marked by where its 99 % interval lies against the claims' ±5 % band: inside
(✓), outside (✗) or across (?). Needs the torch and hf extras (not a registered figure:
``attndepth figures`` runs without them); the documentation's gallery draws it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from attndepth.errors import InvalidParameter
from attndepth.figures.style import PALETTE, new_figure, styled, tidy

NAME = "architecture-rates"
DESCRIPTION = ("measured against derived log-odds slopes of BERT, GPT-2, LLaMA and the "
               "torch.nn encoders at their initialisation, and the validity map over (σ, d)")
#: The scatter's members: placement, architecture, σ values (None: PyTorch's own).
SCATTER = (("post", "bert", (0.02, 0.05, 0.1)), ("post", "encoder-post", (None,)),
           ("pre", "gpt2", (0.02, 0.05)), ("pre", "llama", (0.02, 0.05)),
           ("pre", "encoder-pre", (None,)))
#: The curves of panel (c): architecture and σ.
CURVES = (("gpt2", 0.02), ("llama", 0.02))
#: The validity maps of panels (d)–(f): the architectures and their σ.
MAP_ARCHITECTURES = ("bert", "gpt2", "llama")
MAP_STDS = (0.01, 0.02, 0.05, 0.1, 0.2)
#: The sizes: scatter widths, map widths, blocks (the curves: twice as many), tokens and
#: models a point. ``quick`` is the gallery's (about a minute on two cores), ``full`` the
#: theory document's.
@dataclass(frozen=True)
class FigureSize:
    """Scatter widths, map widths, blocks (the curves: twice as many), tokens, models."""

    widths: tuple[int, ...]
    map_widths: tuple[int, ...]
    depth: int
    tokens: int
    models: int


SIZES = {"quick": FigureSize((64, 128), (64, 128, 256), 16, 16, 4),
         "full": FigureSize((64, 128, 256), (64, 128, 256, 512), 24, 16, 8)}
BAND = 0.05
#: One colour per architecture (the same in every panel), one marker per σ (None: PyTorch's).
COLOURS = {"bert": PALETTE[0], "encoder-post": PALETTE[1], "gpt2": PALETTE[2],
           "llama": PALETTE[3], "encoder-pre": PALETTE[4]}
MARKERS = {0.02: "o", 0.05: "s", 0.1: "D", None: "v"}
CONFIDENCE = 0.99


def _measured(architecture: str, std: float | None, width: int, depth: int, seed: int,
              tokens: int, models: int) -> tuple[Any, Any, np.ndarray, int]:
    from attndepth.pytorch.escalation import architecture_trace
    from attndepth.pytorch.initialisations import block_gains
    from attndepth.simulations.models.gram_recursion import gram_log_odds

    heads = max(1, width // 64)
    found = architecture_trace(architecture, depth=depth, tokens=tokens, width=width,
                               heads=heads, batch=models, seed=seed, contraction=False,
                               init_std=std)
    gains = block_gains(architecture, width=width, depth=depth, heads=heads, init_std=std)
    predicted = np.stack([gram_log_odds(gains, tokens=tokens, width=width, depth=depth,
                                        start_similarity=float(t0))
                          for t0 in found.similarity[0]], axis=1)
    below = np.all(predicted <= 30.0, axis=1)
    last = predicted.shape[0] - 1 if below.all() else int(np.argmin(below)) - 1
    return found, gains, predicted, last


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, values.size - 1)
                 * values.std(ddof=1) / math.sqrt(values.size))
    return mean, mean - half, mean + half


def architecture_columns(size: str = "quick", seed: int = 0) -> dict[str, list]:
    """The figure's data at ``size`` (a key of :data:`SIZES`), one row per point of a panel.

    Columns: ``panel`` (scatter-post, scatter-pre, curve, map), ``architecture``,
    ``init_std`` (nan: PyTorch's own), ``width``, ``layer`` (curves), ``measured``,
    ``low``, ``high``, ``derived``, ``unit`` (the unit-scale rate, scatter rows).
    """
    from attndepth.theory.similarity import postln_rate

    if size not in SIZES:
        raise InvalidParameter(f"size must be one of {', '.join(SIZES)}, got {size!r}")
    chosen = SIZES[size]
    depth, shape = chosen.depth, {"tokens": chosen.tokens, "models": chosen.models}
    columns: dict[str, list] = {k: [] for k in ("panel", "architecture", "init_std", "width",
                                                "layer", "measured", "low", "high",
                                                "derived", "unit")}

    def add(**row: Any) -> None:
        for key in columns:
            columns[key].append(row.get(key, math.nan))

    for placement, architecture, stds in SCATTER:
        for std in stds:
            for width in chosen.widths:
                found, _, predicted, last = _measured(architecture, std, width, depth, seed,
                                                      **shape)
                slopes = (found.log_odds[last] - found.log_odds[0]) / last
                mean, low, high = _interval(slopes)
                derived = float(np.mean(predicted[last] - predicted[0]) / last)
                add(panel=f"scatter-{placement}", architecture=architecture,
                    init_std=math.nan if std is None else std, width=width, measured=mean,
                    low=low, high=high, derived=derived, unit=postln_rate(0.0, width))
    width = max(chosen.widths)
    for architecture, std in CURVES:
        found, _, predicted, _ = _measured(architecture, std, width, 2 * depth, seed, **shape)
        q10, median, q90 = np.quantile(found.log_odds, [0.1, 0.5, 0.9], axis=1)
        for layer in range(2 * depth + 1):
            add(panel="curve", architecture=architecture, init_std=std, width=width,
                layer=layer, measured=float(median[layer]), low=float(q10[layer]),
                high=float(q90[layer]), derived=float(np.median(predicted[layer])))
    for architecture in MAP_ARCHITECTURES:
        for std in MAP_STDS:
            for width in chosen.map_widths:
                found, _, predicted, last = _measured(architecture, std, width, depth, seed,
                                                      **shape)
                ratios = ((found.log_odds[last] - found.log_odds[0])
                          / (predicted[last] - predicted[0]) - 1)
                mean, low, high = _interval(ratios)
                add(panel="map", architecture=architecture, init_std=std, width=width,
                    measured=mean, low=low, high=high)
    return columns


def _rows(data: dict[str, list], panel: str) -> Iterable[dict[str, Any]]:
    for i, name in enumerate(data["panel"]):
        if name == panel:
            yield {key: values[i] for key, values in data.items()}


def _mark(row: dict[str, Any]) -> str:
    """✓ where the 99 % interval lies inside ±:data:`BAND`, ✗ outside it, ? across."""
    if -BAND <= row["low"] and row["high"] <= BAND:
        return "✓"
    return "✗" if row["high"] < -BAND or row["low"] > BAND else "?"


def _scatter(axis: Any, data: dict[str, list], panel: str, title: str) -> None:
    rows = list(_rows(data, panel))
    shown: set[str] = set()
    for row in rows:
        own = math.isnan(row["init_std"])
        std = None if own else row["init_std"]
        label = (f"{row['architecture']}, PyTorch's initialisation" if own
                 else f"{row['architecture']}, σ = {row['init_std']:g}")
        axis.errorbar(row["derived"], row["measured"],
                      yerr=[[row["measured"] - row["low"]], [row["high"] - row["measured"]]],
                      marker=MARKERS.get(std, "P"), color=COLOURS[row["architecture"]],
                      markersize=2 + row["width"] / 64, linestyle="none", capsize=0,
                      label=None if label in shown else label)
        shown.add(label)
        axis.plot(row["unit"], row["measured"], marker="x", color="0.6", markersize=3,
                  linestyle="none", label=None if "unit" in shown else
                  "unit-scale rate (same model)")
        shown.add("unit")
    values = [v for r in rows for v in (r["derived"], r["measured"], r["unit"]) if v > 0]
    low, high = min(values) / 2, max(values) * 2
    axis.plot([low, high], [low, high], color="k", linewidth=0.6, label="measured = derived")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    axis.set_xlabel("derived slope (a block)")
    axis.set_ylabel("measured slope (a block)")
    axis.set_title(title)
    axis.legend(loc="upper left" if panel.endswith("post") else "lower right")


def _validity_map(axis: Any, rows: list[dict[str, Any]], architecture: str) -> None:
    """One architecture's measured/derived rise − 1 over (σ, d): a cell coloured where
    decided (✓ inside the band, ✗ outside), blank where its interval crosses it (?)."""
    stds = sorted({r["init_std"] for r in rows})
    widths = sorted({r["width"] for r in rows})
    grid = np.full((len(stds), len(widths)), np.nan)
    for r in rows:
        mark = _mark(r)
        if mark != "?":
            grid[stds.index(r["init_std"]), widths.index(r["width"])] = r["measured"]
        axis.text(widths.index(r["width"]), stds.index(r["init_std"]),
                  f"{r['measured']:+.0%}{mark}", ha="center", va="center", fontsize=4.5)
    axis.imshow(grid, cmap="RdBu_r", vmin=-0.3, vmax=0.3, origin="lower", aspect="auto")
    axis.set_xticks(range(len(widths)), [str(w) for w in widths])
    axis.set_yticks(range(len(stds)), [f"{s:g}" for s in stds])
    axis.set_ylabel("σ")
    axis.set_title(f"{architecture}: rise error")
    axis.set_xlabel("width $d$")


def draw_architecture_rates(data: dict[str, list]) -> Any:
    """The six panels (module docstring) from :func:`architecture_columns`'s data."""
    figure, axes = new_figure(columns=2, aspect=0.72, ncols=3, nrows=2)
    (post, pre, curves), lower = axes
    with styled():
        _scatter(post, data, "scatter-post", "post-norm")
        _scatter(pre, data, "scatter-pre", "pre-norm")
        for architecture in dict.fromkeys(r["architecture"] for r in _rows(data, "curve")):
            rows = [r for r in _rows(data, "curve") if r["architecture"] == architecture]
            layer = [r["layer"] for r in rows]
            colour = COLOURS[architecture]
            curves.plot(layer, [r["measured"] for r in rows], color=colour,
                        label=f"{architecture}, d = {rows[0]['width']}, measured")
            curves.fill_between(layer, [r["low"] for r in rows], [r["high"] for r in rows],
                                color=colour, alpha=0.2, linewidth=0)
            curves.plot(layer, [r["derived"] for r in rows], ":", color=colour,
                        label=f"{architecture}, derived")
        curves.set_xlabel("depth $l$")
        curves.set_ylabel(r"log-odds $\ln(t_{\mathrm{sim}}/t_{\mathrm{div}})$")
        curves.set_title("pre-norm: the law of depth")
        curves.legend(loc="lower right")
        maps = dict.fromkeys(r["architecture"] for r in _rows(data, "map"))
        for axis, architecture in zip(lower, maps, strict=False):
            _validity_map(axis, [r for r in _rows(data, "map")
                                 if r["architecture"] == architecture], architecture)
        figure.supxlabel(f"(d)–(f) rise error: measured / derived rise − 1 (mean over models); "
                         f"✓ its 99 % interval inside ±{BAND:.0%}, ✗ outside, ? across "
                         f"(blank)", fontsize=6)
    tidy(figure)
    return figure
