"""Certified lower bounds that decide knees, shipped with the package.

Deciding the knee of a regime (width d, |P| = |Q| = q; :mod:`attndepth.rank.knee`) needs
certified lower bounds lo(L) of the separation rank at a few depths. The costliest of
them — the torus split at d = 5, q = 5, L = 3 takes minutes — are measured once
(``attndepth atlas knees``) and shipped in ``data/knee_certificates.csv``, one row per
(d, q, L) with the method, grid, prime, seed and the ``seprank`` command that measures it
again. A certificate is a GF(p) rank of an evaluation matrix of integer points: a lower
bound of the rank over the rationals whatever the seed that drew the points, so it
serves every seed of a claim.

On reading, every row is checked: the rank lies between 2 and the proved bound (d) of
its class, and the command names its class.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import astuple, dataclass, fields
from pathlib import Path

from attndepth.errors import DamagedStore, shown
from attndepth.input_files import decode, describe_path, read_bytes
from attndepth.input_files import reader as input_reader
from attndepth.theory.separation_rank import separation_rank_bounds
from attndepth.validation import check_int

#: The shipped certificates.
DEFAULT_PATH = Path(__file__).parent / "data" / "knee_certificates.csv"


@dataclass(frozen=True)
class KneeCertificate:
    """A certified lower bound of sep at (d, L, |P| = |Q| = q), one head, ρ = 0.

    Attributes
    ----------
    width, q_size, depth : d, q and L.
    rank : the certified lower bound (a GF(prime) rank).
    method : ``blocks`` or ``torus`` (:class:`~attndepth.rank.knee.RegimeKnee`).
    grid : the largest block grid (per class for the torus split).
    torus_order : N of the torus split (0 for the blocks).
    seed : the seed that drew the evaluation points.
    seconds : the measurement's time where it was made.
    version : attndepth's version that made it.
    command : the ``attndepth seprank`` command that measures it again.
    """

    width: int
    q_size: int
    depth: int
    rank: int
    method: str
    grid: int
    torus_order: int
    seed: int
    seconds: float
    version: str
    command: str


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(KneeCertificate))


def certificate_command(width: int, q_size: int, depth: int, method: str, grid: int,
                        torus_order: int, seed: int) -> str:
    """The ``attndepth seprank`` command that measures one certificate again."""
    torus = f" --torus-order {torus_order}" if method == "torus" else ""
    return (f"attndepth seprank --width {width} --depth {depth} --tokens {2 * q_size} "
            f"--partition sizes={q_size}/{q_size} --method {method}{torus} "
            f"--max-points {grid} --seed {seed} --recompute")


def _parse(record: dict[str, str], where: str) -> KneeCertificate:
    try:
        values = {name: int(record[name]) for name in
                  ("width", "q_size", "depth", "rank", "grid", "torus_order", "seed")}
        found = KneeCertificate(**values, method=record["method"],
                                seconds=float(record["seconds"]), version=record["version"],
                                command=record["command"])
        bound = separation_rank_bounds(found.width, found.depth, found.q_size,
                                       found.q_size).best
    except (KeyError, TypeError, ValueError) as error:
        raise DamagedStore(f"{where}: not a knee certificate row "
                           f"({shown(str(error), 120, quote=False)})") from None
    if not 2 <= found.rank <= bound:
        raise DamagedStore(f"{where}: rank {found.rank} outside [2, bound (d) = {bound}] at "
                           f"d={found.width}, L={found.depth}, q={found.q_size}: the file "
                           f"contradicts a proved bound")
    expected = certificate_command(found.width, found.q_size, found.depth, found.method,
                                   found.grid, found.torus_order, found.seed)
    if found.method not in ("blocks", "torus") or found.command != expected:
        raise DamagedStore(f"{where}: method {shown(found.method, 40)} or command does not "
                           f"name its class (expected {shown(expected, 200)})")
    return found


@input_reader("knee certificates", "csv")
def read_certificates(path: str | Path) -> tuple[KneeCertificate, ...]:
    """Every certificate of a file, checked.

    Raises
    ------
    DamagedStore
        A file that is not UTF-8 CSV, a row that is not a certificate, whose command does
        not name its class, or whose rank lies outside [2, bound (d)] (a proved bound).
    """
    text = decode(read_bytes(path, "knee certificates"),
                  describe_path("knee certificates", path))
    where = describe_path("knee certificates", path)
    reader = csv.DictReader(io.StringIO(text))
    try:
        if tuple(reader.fieldnames or ()) != FIELDS:
            raise DamagedStore(f"{where}: the header is not {','.join(FIELDS)}")
        return tuple(_parse(record, f"{where}, row {k}") for k, record in enumerate(reader, 2))
    except csv.Error as error:  # a NUL byte, a field beyond csv's size limit
        raise DamagedStore(f"{where}: not a CSV table (line {reader.line_num}: {error})") \
            from None


@functools.cache
def shipped_certificates() -> tuple[KneeCertificate, ...]:
    """The certificates shipped with the package (read once)."""
    return read_certificates(DEFAULT_PATH)


def shipped_certificate(width: int, q_size: int, depth: int,
                        target: int) -> KneeCertificate | None:
    """The largest shipped certificate of (d, q, L) if it reaches ``target``, else None.

    Raises
    ------
    InvalidParameter
        A size or target that is not an integer >= 1.
    """
    width, q_size, depth, target = (check_int(name, value, minimum=1) for name, value in (
        ("width", width), ("q_size", q_size), ("depth", depth), ("target", target)))
    found = [c for c in shipped_certificates()
             if (c.width, c.q_size, c.depth) == (width, q_size, depth)]
    best = max(found, key=lambda c: c.rank, default=None)
    return best if best is not None and best.rank >= target else None


def certificates_text(certificates: list[KneeCertificate]) -> str:
    """Certificates as the shipped file's CSV, sorted by (d, q, L)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for certificate in sorted(certificates, key=lambda c: (c.width, c.q_size, c.depth)):
        writer.writerow(astuple(certificate))
    return out.getvalue()
