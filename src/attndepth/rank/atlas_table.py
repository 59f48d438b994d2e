"""The separation-rank atlas as a table: its rows, the shipped data file and its loader.

One row per size class (d, L, H, ρ, |P|, |Q|) of the analysed linear-attention
network: the certified rank of f = y^{L,i}_p, every proved upper bound, the
certificate, and what reproduces it (method, prime, seed, grid cap, time limit,
command, toolkit version). The certificate is

* ``proved`` — the rank met a proved upper bound (every block its own, for the
  blocks method): rank = generic separation rank;
* ``saturated`` — the grids stopped the rank from growing; rank = generic
  separation rank except with probability ≤ ``failure_probability``
  (Schwartz–Zippel; :mod:`attndepth.rank.grids`);
* ``lower-bound`` — a certified lower bound only (a grid cap was reached, or
  ρ = 1 measured through the blocks of ρ = 0 below its bound).

Rows at |P| = d + 1 and |Q| = d stand for every larger size
(:mod:`attndepth.rank.atlas_classes`); :meth:`Atlas.find` applies that.
The file is CSV with the header :data:`ATLAS_COLUMNS`; ``short_blocks`` is JSON,
a list of ``[a, rank, bound]`` per degree block below its bound.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

from attndepth.errors import InvalidParameter, InvalidType, MissingExtra, shown
from attndepth.input_files import decode, describe_path, parse_json, read_bytes, reader
from attndepth.rank.budget import MAX_BLOCK_SECONDS
from attndepth.simulations.output_files import OutputFile, output_file, text_kind

#: The shipped atlas, inside the package.
ATLAS_RESOURCE = ("attndepth.rank", "data/atlas.csv")
#: Certificates, strongest first.
CERTIFICATES = ("proved", "saturated", "lower-bound")
#: The certificate of each measurement reason.
CERTIFICATE_OF_REASON = {"upper-bound": "proved", "margin": "saturated",
                         "max-points": "lower-bound", "lower-bound": "lower-bound"}


def seprank_command(width: int, depth: int, heads: int, residual: int, p_size: int,
                    q_size: int, method: str, max_points: int, seed: int,
                    max_seconds: float = MAX_BLOCK_SECONDS) -> str:
    """The ``attndepth seprank`` command that measures one class alone (same draws);
    ``--max-seconds`` only where the class needs more than the default limit."""
    heads_option = f" --heads {heads}" if heads != 1 else ""
    residual_option = " --residual" if residual else ""
    seconds_option = (f" --max-seconds {max_seconds:.0f}" if max_seconds != MAX_BLOCK_SECONDS
                      else "")
    return (f"attndepth seprank --width {width} --depth {depth}{heads_option} "
            f"--tokens {p_size + q_size} --partition sizes={p_size}/{q_size}"
            f"{residual_option} --method {method} --max-points {max_points}{seconds_option} "
            f"--seed {seed}")


@dataclass(frozen=True)
class AtlasRow:
    """One size class and its certified rank (module docstring for the certificate)."""

    width: int
    depth: int
    heads: int
    residual: int
    p_size: int
    q_size: int
    rank: int
    certificate: str
    failure_probability: float | None
    bound_monomials: int
    bound_q_side: int
    bound_p_side: int
    bound_bigraded: int
    bound_best: int
    short_blocks: tuple[tuple[int, int, int], ...]
    method: str
    prime: int
    seed: int
    max_points: int
    max_seconds: float
    grid: int
    seconds: float
    version: str

    @property
    def key(self) -> tuple[int, int, int, int, int, int]:
        """The class as ``(d, L, H, ρ, |P|, |Q|)``."""
        return (self.width, self.depth, self.heads, self.residual, self.p_size, self.q_size)

    @property
    def deficit(self) -> int:
        """bound (d) − rank (≥ 0; exact when ``certificate`` is ``proved``/``saturated``)."""
        return self.bound_bigraded - self.rank

    @property
    def decided(self) -> bool:
        """Whether the rank is the generic rank (proved, or saturated up to its probability)."""
        return self.certificate != "lower-bound"

    @property
    def command(self) -> str:
        return seprank_command(self.width, self.depth, self.heads, self.residual,
                               self.p_size, self.q_size, self.method, self.max_points,
                               self.seed, self.max_seconds)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "command": self.command}


#: The data file's header: the fields of :class:`AtlasRow`, then the command.
ATLAS_COLUMNS = tuple(f.name for f in fields(AtlasRow)) + ("command",)
_INTEGERS = {"width", "depth", "heads", "residual", "p_size", "q_size", "rank",
             "bound_monomials", "bound_q_side", "bound_p_side", "bound_bigraded", "bound_best",
             "prime", "seed", "max_points", "grid"}


def _cell_int(value: object) -> int:
    """An integer of a JSON cell (a float or a string is not one)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected integers, found {shown(value, 20)}")
    return value


def _parse(record: dict[str, str], where: str) -> AtlasRow:
    values: dict[str, Any] = {}
    try:
        for name in ATLAS_COLUMNS[:-1]:
            text = record[name]
            if name in _INTEGERS:
                values[name] = int(text)
            elif name == "failure_probability":
                values[name] = None if text == "" else float(text)
            elif name in ("seconds", "max_seconds"):
                values[name] = float(text)
            elif name == "short_blocks":
                blocks = parse_json(text, "short_blocks")
                values[name] = tuple(tuple(_cell_int(v) for v in block) for block in blocks)
            else:
                values[name] = text
    except (KeyError, ValueError, TypeError) as error:
        why = shown(str(error), 120, quote=False)
        raise InvalidParameter(f"{where}: not an atlas row ({why})") from None
    row = AtlasRow(**values)
    problem = _row_problem(row)
    if problem:
        raise InvalidParameter(f"{where}: not an atlas row "
                               f"({shown(problem, 160, quote=False)})")
    return row


#: The methods a row's rank may come from.
ATLAS_METHODS = ("blocks", "exact", "torus")


def _row_problem(row: AtlasRow) -> str:
    """What no measurement can produce in ``row`` ('' for a possible row): each field's
    domain, the bounds' order (bound_best the least of the four, the rank at most it),
    and each certificate's own promise (proved: rank = bound_best, probability 0;
    saturated: a probability in (0, 1]; lower bound: none)."""
    sizes = {"width": row.width, "depth": row.depth, "heads": row.heads,
             "p_size": row.p_size, "q_size": row.q_size, "max_points": row.max_points}
    small = [name for name, value in sizes.items() if value < 1]
    if small:
        return f"{small[0]} must be >= 1, got {sizes[small[0]]}"
    if row.residual not in (0, 1):
        return f"residual must be 0 or 1, got {row.residual}"
    if row.seed < 0 or row.prime < 2 or row.grid < 0:
        return f"seed {row.seed}, prime {row.prime} and grid {row.grid} must be >= 0, >= 2, >= 0"
    if row.method not in ATLAS_METHODS:
        return f"method must be one of {', '.join(ATLAS_METHODS)}, got {row.method!r}"
    if not row.version:
        return "no version"
    bounds = (row.bound_monomials, row.bound_q_side, row.bound_p_side, row.bound_bigraded)
    if min(bounds) < 0 or row.bound_best != min(bounds):
        return f"bound_best {row.bound_best} is not the least of the bounds {list(bounds)}"
    if row.certificate not in CERTIFICATES or not 0 <= row.rank <= row.bound_best:
        return f"certificate {row.certificate!r}, rank {row.rank} of bound {row.bound_best}"
    probability = row.failure_probability
    if probability is not None and not 0 <= probability <= 1:  # NaN too
        return f"failure_probability must lie in [0, 1], got {probability}"
    if row.certificate == "proved" and (row.rank != row.bound_best or probability):
        return (f"a proved rank equals its bound with failure probability 0, got rank "
                f"{row.rank} of {row.bound_best}, probability {probability}")
    if row.certificate == "saturated" and not (probability and probability > 0):
        return f"a saturated rank states its failure probability, got {probability}"
    if row.certificate == "lower-bound" and probability is not None:
        return f"a lower bound has no failure probability, got {probability}"
    if not all(len(block) == 3 and min(block) >= 0 and block[1] < block[2]
               for block in row.short_blocks):
        return "short_blocks must be [degree, rank, bound] triples with rank < bound"
    if not (0 < row.max_seconds < math.inf and 0 <= row.seconds < math.inf):  # NaN too
        return (f"max_seconds {row.max_seconds} must be > 0 and seconds {row.seconds} >= 0, "
                f"both finite")
    return ""


class Atlas(Sequence[AtlasRow]):
    """The atlas' rows, sorted by (d, L, H, ρ, |P|, |Q|); a read-only sequence.

    ``atlas.where(width=4, heads=1)`` selects, ``atlas.find(d, L, H, ρ, |P|, |Q|)``
    looks one class up (any sizes; saturated ones map to their row),
    ``atlas.column("rank")`` gives one column, ``atlas.to_pandas()`` a DataFrame
    (pandas is optional and not a dependency).
    """

    def __init__(self, rows: Iterable[AtlasRow]):
        self._rows = tuple(sorted(rows, key=lambda row: row.key))
        self._index = {row.key: row for row in self._rows}
        if len(self._index) != len(self._rows):
            raise InvalidParameter("the atlas lists a size class twice")

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return Atlas(self._rows[index])
        return self._rows[index]

    def __iter__(self) -> Iterator[AtlasRow]:
        return iter(self._rows)

    def __repr__(self) -> str:
        return f"<Atlas: {len(self)} size classes>"

    def summary(self) -> str:
        """A few lines: the classes held, how they are certified, the sizes they span and
        how to read them (what a notebook shows for an atlas)."""
        if not self._rows:
            return "Atlas: no size classes"
        counts: dict[str, int] = {}
        for row in self._rows:
            counts[row.certificate] = counts.get(row.certificate, 0) + 1
        spans = ", ".join(f"{label} {min(values)}–{max(values)}" for label, values in (
            ("d", self.column("width")), ("L", self.column("depth")),
            ("H", self.column("heads")), ("|P|", self.column("p_size")),
            ("|Q|", self.column("q_size"))))
        decided = [row for row in self._rows if row.decided]
        tight = sum(row.rank == row.bound_bigraded for row in decided)
        return "\n".join([
            f"Atlas: {len(self):,} size classes (d, L, H, ρ, |P|, |Q|) of certified "
            f"separation ranks",
            "  certificates  " + ", ".join(f"{n:,} {name}" for name, n in sorted(
                counts.items())),
            f"  spans         {spans}; ρ ∈ {sorted(set(self.column('residual')))}",
            f"  rank = bound (d) in {tight:,} of the {len(decided):,} decided classes",
            "  read          atlas.find(d, L, H, ρ, |P|, |Q|), atlas.where(width=4), "
            "atlas.column('rank'), row.command"])

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython and Jupyter
        printer.text(repr(self) if cycle else self.summary())

    #: Rows a notebook shows of an atlas (the first ones; filter to see others).
    SHOWN_ROWS = 8

    def _repr_html_(self) -> str:  # Jupyter
        """The summary's lines as the caption and footer, and the first rows as a table."""
        from attndepth.html_table import html_table

        lines = self.summary().splitlines()
        shown = self._rows[:self.SHOWN_ROWS]
        more = (f"; the first {len(shown)} of {len(self):,} rows shown"
                if len(self) > len(shown) else "")
        return html_table(lines[0], [[getattr(row, name) for name in ATLAS_COLUMNS]
                                     for row in shown], header=ATLAS_COLUMNS,
                          footer=" · ".join(" ".join(line.split()) for line in lines[1:])
                          + more)

    def where(self, **equal: Any) -> Atlas:
        """The rows whose fields equal the given values (``width=4, residual=0``)."""
        unknown = set(equal) - set(ATLAS_COLUMNS)
        if unknown:
            raise InvalidParameter(f"no atlas column {', '.join(sorted(unknown))}; columns: "
                                   f"{', '.join(ATLAS_COLUMNS)}")
        return Atlas(row for row in self._rows
                     if all(getattr(row, name) == value for name, value in equal.items()))

    def find(self, width: int, depth: int, heads: int, residual: int, p_size: int,
             q_size: int) -> AtlasRow | None:
        """The row of a class, |P| and |Q| first reduced to min(|P|, d + 1), min(|Q|, d)
        (the saturation lemma); None when the atlas does not hold it."""
        for name, value in (("width", width), ("depth", depth), ("heads", heads),
                            ("p_size", p_size), ("q_size", q_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidParameter(f"{name} must be an integer >= 1, got {value!r}")
        if residual not in (0, 1) or isinstance(residual, bool):
            raise InvalidParameter(f"residual must be 0 or 1, got {residual!r}")
        key = (width, depth, heads, residual, min(p_size, width + 1), min(q_size, width))
        return self._index.get(key)

    def column(self, name: str) -> list[Any]:
        """One column, in row order."""
        if name not in ATLAS_COLUMNS:
            raise InvalidParameter(f"no atlas column {name!r}; columns: "
                                   f"{', '.join(ATLAS_COLUMNS)}")
        return [getattr(row, name) for row in self._rows]

    def to_pandas(self):
        """A pandas DataFrame with the columns :data:`ATLAS_COLUMNS` (pandas optional)."""
        try:
            import pandas  # type: ignore[import-untyped]
        except ImportError:
            raise MissingExtra("Atlas.to_pandas needs pandas (pip install pandas); "
                                    "without it, iterate the rows or use column()") from None
        return pandas.DataFrame([row.as_dict() for row in self._rows], columns=ATLAS_COLUMNS)


@reader("an atlas", "csv")
def atlas(path: str | Path | None = None) -> Atlas:
    """The atlas from a CSV file; default: the one shipped in the package.

    Parameters
    ----------
    path : a file written by :func:`write_atlas` (``attndepth atlas export``).

    Examples
    --------
    >>> import attndepth
    >>> table = attndepth.atlas()
    >>> row = table.find(2, 3, 1, 0, 9, 9)      # d=2, L=3, H=1, ρ=0, |P|=|Q|=9
    >>> row.key, row.rank == row.bound_bigraded
    ((2, 3, 1, 0, 3, 2), True)

    Returns
    -------
    Atlas
    """
    if path is None:
        text = resources.files(ATLAS_RESOURCE[0]).joinpath(ATLAS_RESOURCE[1]).read_text()
        where = "the shipped atlas"
    else:
        if not isinstance(path, (str, Path)):
            raise InvalidType(f"path must be a str or Path, got {type(path).__name__}")
        where = describe_path("atlas", path)
        text = decode(read_bytes(path, "atlas"), where)
    rows = csv.DictReader(text.splitlines())
    try:
        if tuple(rows.fieldnames or ()) != ATLAS_COLUMNS:
            raise InvalidParameter(f"{where}: not an atlas file (its header is not "
                                   f"{','.join(ATLAS_COLUMNS)})")
        return Atlas(_parse(record, f"{where}, line {number}")
                     for number, record in enumerate(rows, start=2))
    except csv.Error as error:  # a NUL byte, a field beyond csv's size limit
        raise InvalidParameter(f"{where}: not an atlas file (line {rows.line_num}: "
                               f"{error})") from None


#: An earlier atlas file: its header row.
ATLAS_FILE = text_kind("an atlas file (its header is the atlas' columns)",
                       re.escape(",".join(ATLAS_COLUMNS)) + r"\r?\n")


def atlas_output(path: str | Path, *, replace: bool = False,
                 reading: tuple[str | Path | None, ...] = (), hint: str = "") -> OutputFile:
    """Check ``path`` as the atlas to write, before the work: it may replace an earlier
    atlas file, another regular file only with ``replace``, and never a store, an
    input in ``reading``, a directory or a device
    (:mod:`attndepth.simulations.output_files`).

    Raises
    ------
    InvalidParameter
        No directory of that name (from a clone, run at its root), or a file there that
        may not be replaced (left untouched).
    """
    target = Path(path)
    if not target.parent.is_dir():
        raise InvalidParameter(f"cannot write the atlas {target}: no directory "
                               f"{target.parent} (from a clone, run at its root)")
    return output_file(target, ATLAS_FILE, replace=replace, reading=reading, hint=hint)


def write_atlas(atlas: Atlas, path: str | Path | OutputFile) -> None:
    """Write the atlas as CSV (the header :data:`ATLAS_COLUMNS`), replacing ``path``
    whole (a kill leaves the old file or the new, never half of one).

    Parameters
    ----------
    atlas : the rows.
    path : a file path (which may hold nothing or an earlier atlas), or an
        :class:`~attndepth.simulations.output_files.OutputFile` from :func:`atlas_output`.

    Raises
    ------
    InvalidParameter
        ``path`` may not be written (:func:`atlas_output`).
    OutputFailed
        The disk failed; the file there was left as it was.
    """
    output = path if isinstance(path, OutputFile) else atlas_output(path)
    with output.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(ATLAS_COLUMNS)
        for row in atlas:
            record = row.as_dict()
            record["short_blocks"] = json.dumps([list(b) for b in row.short_blocks],
                                                separators=(",", ":"))
            record["failure_probability"] = ("" if row.failure_probability is None
                                             else repr(row.failure_probability))
            record["seconds"] = f"{row.seconds:.3f}"
            writer.writerow([record[name] for name in ATLAS_COLUMNS])


def row_from_point(config: dict[str, Any], metrics: dict[str, Any], seed: int,
                   version: str) -> AtlasRow:
    """An atlas row from one finished ``seprank`` sweep point (config and metrics)."""
    split = config["partition"].removeprefix("sizes=").split("/")
    p_size, q_size = int(split[0]), int(split[1])
    probability = metrics["failure_probability"]
    return AtlasRow(
        width=config["width"], depth=config["depth"], heads=config["heads"],
        residual=config["residual"], p_size=p_size, q_size=q_size, rank=metrics["rank"],
        certificate=CERTIFICATE_OF_REASON[metrics["reason"]],
        failure_probability=None if probability is None or math.isnan(probability)
        else float(probability),
        bound_monomials=metrics["bound_monomials"], bound_q_side=metrics["bound_q_side"],
        bound_p_side=metrics["bound_p_side"], bound_bigraded=metrics["bound_bigraded"],
        bound_best=metrics["bound_best"],
        short_blocks=tuple(tuple(block) for block in metrics["short_blocks"]),
        method=metrics["method"], prime=metrics["prime"], seed=seed,
        max_points=config["max_points"],
        max_seconds=config.get("max_seconds", MAX_BLOCK_SECONDS),  # stores before the limit
        grid=metrics["grid"], seconds=metrics["seconds"],
        version=version)


def atlas_from_store(path: str | Path) -> tuple[Atlas, list[dict[str, Any]]]:
    """The atlas of a sweep store's finished ``seprank`` points, and its failed points.

    Parameters
    ----------
    path : the SQLite store of ``attndepth sweep examples/atlas/atlas.toml``.

    Returns
    -------
    (Atlas, list of dict)
        The rows of the points that finished (status ok; a size class measured
        at several seeds keeps its lowest seed's row), and the failed points'
        ``config`` and ``error``.
    """
    from attndepth.simulations.sweeps.store import open_store

    if not Path(path).is_file():
        raise InvalidParameter(f"store {path} does not exist or is not a file")
    with open_store(path, readonly=True) as store:
        points = store.rows("seprank")
    chosen: dict[tuple, AtlasRow] = {}
    failed = []
    for point in sorted(points, key=lambda p: p["seed"]):
        if point["status"] != "ok":
            failed.append({"config": point["config"], "error": point["error"]})
            continue
        if not point["config"]["partition"].startswith("sizes="):
            continue  # not an atlas point: the atlas' spec names sizes
        row = row_from_point(point["config"], point["metrics"], point["seed"],
                             point["version"])
        chosen.setdefault(row.key, row)
    return Atlas(chosen.values()), failed
