"""A model trained beside the same architecture at its own initialisation, layer by layer.

Six panels against the relative depth ℓ/L (so that models of 6 and 30 blocks share an
axis): token similarity t_sim, mean pairwise cosine, stable rank,
attention entropy, the first token's attention mass (an attention sink) and each block's
relative update ‖X_{ℓ+1} − X_ℓ‖/‖X_ℓ‖ — each as the mean over the same windows of text
with its 99 % interval; trained solid, initialised dashed, one colour per model. Drawn by
``attndepth observe MODEL --figure DIR`` from
:class:`~attndepth.pytorch.profiles.LayerProfile` s (not a registered figure: it needs the
model packages, which ``attndepth figures`` does not).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    new_figure,
    style_key,
    styled,
    tidy,
)

#: The panels drawn on a logarithmic axis.
LOG_PANELS = ("stable_rank", "relative_update")
#: The panels: observable and its axis label.
PANELS = (("t_sim", r"token similarity $t_{\mathrm{sim}}$"),
          ("cosine", "mean pairwise cosine"),
          ("stable_rank", "stable rank"),
          ("attention_entropy", "attention entropy (nats)"),
          ("sink_mass", "first-token attention mass"),
          ("relative_update", r"relative update $\|\Delta X\|/\|X\|$"))
#: The CSV's columns.
COLUMNS = ("model", "weights", "observable", "layer", "mean", "low", "high", "windows",
           "tokens")


def profile_columns(profiles: Sequence[Any]) -> dict[str, list]:
    """The figure's data: one row per profile, observable and layer (:data:`COLUMNS`);
    rows where an observable is undefined (a block's value on layer 0) are left out."""
    columns: dict[str, list] = {name: [] for name in COLUMNS}
    for profile in profiles:
        for row in profile.summary():
            for name, _ in PANELS:
                value = row.get(name)
                if value is None:
                    continue
                for key, item in (("model", profile.model), ("weights", profile.weights),
                                  ("observable", name), ("layer", row["layer"]),
                                  ("mean", value["mean"]), ("low", value["low"]),
                                  ("high", value["high"]), ("windows", profile.windows),
                                  ("tokens", profile.tokens)):
                    columns[key].append(item)
    return columns


def draw_profiles(data: dict[str, list]):
    """Six panels (:data:`PANELS`) of :func:`profile_columns`' data against ℓ/L: per model
    a colour, trained solid, initialised dashed, each with its 99 % band; the stable rank
    and the relative update on logarithmic axes."""
    figure, axes = new_figure(columns=2, aspect=0.62, ncols=3, nrows=2)
    table = {key: np.asarray(values) for key, values in data.items()}
    models = list(dict.fromkeys(data["model"]))
    with styled():
        for axis, (name, label) in zip(axes.ravel(), PANELS, strict=True):
            for index, model in enumerate(models):
                colour = PALETTE[index % len(PALETTE)]
                for weights in dict.fromkeys(table["weights"][table["model"] == model]):
                    rows = ((table["model"] == model) & (table["weights"] == weights)
                            & (table["observable"] == name))
                    if not rows.any():
                        continue
                    depth = table["layer"][(table["model"] == model)].astype(float).max()
                    layer = table["layer"][rows].astype(float) / depth
                    style = "-" if weights == "trained" else "--"
                    axis.plot(layer, table["mean"][rows].astype(float), style, color=colour)
                    axis.fill_between(layer, table["low"][rows].astype(float),
                                      table["high"][rows].astype(float), color=colour,
                                      alpha=0.2, linewidth=0)
            axis.set_xlabel(r"relative depth $\ell / L$")
            axis.set_ylabel(label)
            if name in LOG_PANELS:
                axis.set_yscale("log")
        keys = [style_key(model, color=PALETTE[i % len(PALETTE)])
                for i, model in enumerate(models)]
        keys += [style_key("trained", linestyle="-", color="k"),
                 style_key("initialised", linestyle="--", color="k")]
        windows, tokens = int(table["windows"][0]), int(table["tokens"][0])
        figure.suptitle(f"{windows} windows of {tokens} tokens; means and {INTERVAL_TEXT}",
                        fontsize=7)
        figure.legend([k[0] for k in keys], [k[1] for k in keys], loc="outside lower center",
                      ncols=len(keys))
    tidy(figure)
    return figure
