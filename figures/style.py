"""Shared figure style: journal column widths, a colour-blind-safe palette, no LaTeX.

Widths follow two-column journals: single column 3.25 in, double 6.75 in.
Palette: Okabe & Ito (2008), distinguishable under the common colour-vision
deficiencies. Mathtext renders formulas, so no TeX installation is needed.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

SINGLE_COLUMN_INCHES = 3.25
DOUBLE_COLUMN_INCHES = 6.75
PNG_DPI = 300

#: Okabe–Ito colours, black last.
PALETTE: tuple[str, ...] = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
)

RC_PARAMS = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.2,
    "lines.markersize": 3.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "text.usetex": False,
    "pdf.fonttype": 42,  # embed TrueType, editable text in PDF
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
}


def new_figure(columns: int = 1, aspect: float = 0.75, ncols: int = 1):
    """A figure ``columns`` (1 or 2) journal columns wide; height = aspect × width."""
    if columns not in (1, 2):
        raise ValueError(f"columns must be 1 or 2, got {columns!r}")
    width = SINGLE_COLUMN_INCHES if columns == 1 else DOUBLE_COLUMN_INCHES
    with plt.rc_context(RC_PARAMS):
        figure, axes = plt.subplots(1, ncols, figsize=(width, width * aspect), layout="constrained")
    return figure, axes


def styled():
    """Context manager applying :data:`RC_PARAMS` while drawing."""
    return plt.rc_context(RC_PARAMS)
