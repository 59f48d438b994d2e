"""The model zoo: published depth, width and parameter count of well-known models.

Data: ``src/attndepth/theory/data/model_zoo.csv``, one source per row, shipped inside
``attndepth.theory`` so that the figures can read it from below the front door.
Verdicts come from :func:`attndepth.theory.depth_width.judge_shape`.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib.resources import files

from attndepth.theory.depth_width import DEFAULT_FIT, AllocationFit, Plan, judge_shape


@dataclass(frozen=True)
class ZooModel:
    """A published model shape."""

    name: str
    layers: int
    width: int
    params: float
    source: str


def load_zoo() -> list[ZooModel]:
    """Read the packaged CSV."""
    text = files("attndepth.theory").joinpath("data/model_zoo.csv").read_text()
    return [
        ZooModel(row["name"], int(row["layers"]), int(row["width"]), float(row["params"]),
                 row["source"])
        for row in csv.DictReader(text.splitlines())
    ]


def zoo_verdicts(fit: AllocationFit = DEFAULT_FIT) -> list[tuple[ZooModel, Plan]]:
    """Each zoo model with the rule's verdict on its (layers, width)."""
    return [(model, judge_shape(model.layers, model.width, fit)) for model in load_zoo()]
