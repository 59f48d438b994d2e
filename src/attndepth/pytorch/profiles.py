"""A trained model's layer profile: every per-layer observable over a sample of windows.

:func:`layer_profile` runs :func:`~attndepth.pytorch.observe.observe` on a model's
backbone over windows of the shipped text (or a text of the user's own, or the controls
of random tokens and random embeddings, :mod:`attndepth.pytorch.text_sample`), a few
windows at a time so that the attention matrices of a long sample never need to be held
at once, and keeps every observable of every window: (rows, windows) arrays, rows =
layers + 1 for the states' observables and layers for the blocks'. The verdicts and the
figure read these; the mean over windows and its 99 % Student-t interval are what
:meth:`LayerProfile.summary` prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from attndepth.errors import InvalidParameter
from attndepth.pytorch.observe import SUMMARY_COLUMNS, observe
from attndepth.pytorch.pretrained import Pretrained, initialised, pretrained
from attndepth.pytorch.text_sample import SAMPLE_SOURCE, random_token_windows, text_windows
from attndepth.validation import check_choice, check_int, check_seed

#: What the windows are made of: the text (shipped or given), random token ids, or random
#: Gaussian vectors in place of the token embeddings.
INPUTS = ("text", "random-tokens", "random-embeddings")
#: Windows observed at once (the attention of 8 windows of 128 tokens in a 30-layer,
#: 9-head model: 280 MB in float64).
CHUNK = 8
#: The confidence of the intervals printed.
CONFIDENCE = 0.99


@dataclass(frozen=True)
class LayerProfile:
    """Every per-layer observable of a model over a sample of windows.

    Attributes
    ----------
    model : the model's name (a registry name or a path).
    weights : ``"trained"`` or ``"initialised (seed S)"``.
    inputs : what the windows were: the shipped sample's source, or
        ``"a text of the user's own"``, ``"random tokens"``, ``"random embeddings"``.
    windows, tokens : the sample's size.
    blocks : the blocks' names.
    values : name -> float64 (rows, windows).
    notes : what could not be observed, and why.
    """

    model: str
    weights: str
    inputs: str
    windows: int
    tokens: int
    blocks: tuple[str, ...]
    values: dict[str, np.ndarray]
    notes: tuple[str, ...] = field(default=())

    @property
    def layers(self) -> int:
        """The number of blocks L."""
        return len(self.blocks)

    def per_layer(self, name: str) -> np.ndarray:
        """The observable ``name`` on rows 0 … L (a block's value on the row of its
        output, NaN on row 0): (layers + 1, windows)."""
        values = self.values[name]
        if values.shape[0] == self.layers + 1:
            return values
        return np.concatenate([np.full((1, values.shape[1]), np.nan), values])

    def summary(self) -> list[dict[str, Any]]:
        """Per layer: its block, and each observable's mean over windows with its 99 %
        Student-t interval (``{"mean", "low", "high"}``; None where it is undefined)."""
        rows: list[dict[str, Any]] = []
        for layer in range(self.layers + 1):
            row: dict[str, Any] = {"layer": layer,
                                   "block": "input" if layer == 0 else self.blocks[layer - 1]}
            for name in self.values:
                row[name] = _interval(self.per_layer(name)[layer])
            rows.append(row)
        return rows

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record: the sample, the notes and :meth:`summary`."""
        return {"model": self.model, "weights": self.weights, "inputs": self.inputs,
                "windows": self.windows, "tokens": self.tokens,
                "interval": f"{CONFIDENCE:.0%} Student-t interval of the mean over windows",
                "notes": list(self.notes), "layers": self.summary()}

    def table(self) -> str:
        """The per-layer means as a fixed-width table (the columns of
        :data:`~attndepth.pytorch.observe.SUMMARY_COLUMNS` that were observed)."""
        names = [name for name in SUMMARY_COLUMNS if name in self.values]
        header = ["layer", "block", *names]
        rows = [[str(row["layer"]), row["block"],
                 *("" if row[name] is None else f"{row[name]['mean']:.4g}" for name in names)]
                for row in self.summary()]
        widths = [max(len(cell) for cell in column) for column in zip(header, *rows,
                                                                      strict=True)]
        lines = [f"{self.model}, {self.weights}: {self.windows} windows of {self.tokens} "
                 f"tokens of {self.inputs}; means over windows"]
        lines += ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
                  for line in (header, *rows)]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


def mean_directions(X: np.ndarray) -> np.ndarray:
    """Each window's mean unit token vector per layer: (layers + 1, windows, width) from X
    (layers + 1, windows, tokens, width)."""
    units = X / np.maximum(np.linalg.norm(X, axis=-1, keepdims=True),
                           np.finfo(np.float64).tiny)
    return units.mean(axis=2)


def cross_window_cosine(directions: np.ndarray) -> np.ndarray:
    """Ethayarajh's (2019, §3.3) anisotropy baseline: the mean cosine between the tokens of
    window b and those of window b + 1 (cyclically) — tokens of unrelated texts — per
    layer: (layers + 1, windows) from :func:`mean_directions` (the mean over all pairs of
    tokens is the dot product of the windows' mean unit vectors); NaN for one window."""
    if directions.shape[1] < 2:
        return np.full(directions.shape[:2], np.nan)
    return np.sum(directions * np.roll(directions, -1, axis=1), axis=-1)


def _interval(values: np.ndarray) -> dict[str, float] | None:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    mean = float(values.mean())
    if values.size < 2:
        return {"mean": mean, "low": mean, "high": mean}
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, values.size - 1)
                 * values.std(ddof=1) / np.sqrt(values.size))
    return {"mean": mean, "low": mean - half, "high": mean + half}


def sample_windows(model: Pretrained, windows: int, tokens: int, seed: int,
                   inputs: str = "text", text: str | None = None) -> dict[str, np.ndarray]:
    """The windows a profile observes: ``input_ids`` and ``attention_mask`` (windows,
    tokens), drawn from ``seed`` (:mod:`attndepth.pytorch.text_sample`)."""
    inputs = check_choice("inputs", inputs, INPUTS)
    if inputs != "text" and text is not None:
        raise InvalidParameter(f"a text is for inputs='text', not the {inputs} control")
    if inputs == "random-tokens":
        return random_token_windows(model.tokenizer, windows, tokens, seed)
    if inputs == "random-embeddings":
        return random_embedding_windows(model, windows, tokens, seed)
    return text_windows(model.tokenizer, windows, tokens, seed, text)


def random_embedding_windows(model: Pretrained, windows: int, tokens: int,
                             seed: int) -> dict[str, np.ndarray]:
    """The control of random embeddings: ``inputs_embeds`` (windows, tokens, width) float32
    drawn i.i.d. from N(0, s²), s the standard deviation of the model's own token
    embedding table (what the blocks would see of uncorrelated tokens of typical size),
    from ``seed``; an all-ones ``attention_mask``. A BERT still adds its position and
    type embeddings to them."""
    windows = check_int("windows", windows, minimum=1, maximum=100_000)
    tokens = check_int("tokens", tokens, minimum=2, maximum=100_000)
    seed = check_seed("seed", seed)
    table = model.backbone.get_input_embeddings().weight.detach().float().numpy()
    rng = np.random.default_rng(seed)
    drawn = rng.normal(0.0, float(table.std()), size=(windows, tokens, table.shape[1]))
    return {"inputs_embeds": drawn.astype(np.float32),
            "attention_mask": np.ones((windows, tokens), dtype=np.int64)}


def layer_profile(model: str | Pretrained, *, windows: int = 8, tokens: int = 128,
                  seed: int = 0, inputs: str = "text", text: str | None = None,
                  initialised_seed: int | None = None, dtype: str = "float32",
                  progress: Callable[[int], None] | None = None) -> LayerProfile:
    """Observe ``model`` layer by layer over ``windows`` windows of ``tokens`` tokens.

    Parameters
    ----------
    model : a :class:`~attndepth.pytorch.pretrained.Pretrained`, or a name or path for
        :func:`~attndepth.pytorch.pretrained.pretrained`.
    windows, tokens : the sample (special tokens included in ``tokens``).
    seed : draws the windows (the same seed: the same windows, whatever the weights).
    inputs : ``"text"`` (the shipped sample, or ``text``), ``"random-tokens"`` or
        ``"random-embeddings"`` (:data:`INPUTS`).
    text : a text of the user's own.
    initialised_seed : observe the same architecture at its own initialisation from this
        seed instead of the trained weights (:func:`~attndepth.pytorch.pretrained.initialised`).
    dtype : ``float32`` (default: the precision the weights are stored in) or ``float64``.
    progress : called with the number of windows done after each chunk.

    Returns
    -------
    LayerProfile
    """
    loaded = model if isinstance(model, Pretrained) else pretrained(model)
    windows = check_int("windows", windows, minimum=1, maximum=100_000)
    seed = check_seed("seed", seed)
    drawn = sample_windows(loaded, windows, tokens, seed, inputs, text)
    network = loaded.backbone if initialised_seed is None else initialised(loaded,
                                                                           initialised_seed)
    collected: dict[str, list[np.ndarray]] = {}
    blocks: tuple[str, ...] = ()
    notes: list[str] = []
    directions: list[np.ndarray] = []
    for start in range(0, windows, CHUNK):
        chunk = {key: value[start:start + CHUNK] for key, value in drawn.items()}
        seen = observe(network, chunk, dtype=dtype)
        blocks = seen.blocks
        if seen.attention_note and seen.attention_note not in notes:
            notes.append(seen.attention_note)
        for name, values in seen.observables().items():
            collected.setdefault(name, []).append(values)
        directions.append(mean_directions(seen.states))
        if progress is not None:
            progress(min(start + CHUNK, windows))
    described = (SAMPLE_SOURCE if text is None else "a text of the user's own") \
        if inputs == "text" else inputs.replace("-", " ")
    weights = "trained" if initialised_seed is None else \
        f"initialised (seed {initialised_seed})"
    return LayerProfile(model=loaded.name, weights=weights, inputs=described,
                        windows=windows, tokens=int(drawn["attention_mask"].shape[1]),
                        blocks=blocks,
                        values={**{name: np.concatenate(parts, axis=1)
                                   for name, parts in collected.items()},
                                "cross_cosine": cross_window_cosine(
                                    np.concatenate(directions, axis=1))},
                        notes=tuple(notes))
