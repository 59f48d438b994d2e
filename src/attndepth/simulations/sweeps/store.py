"""The SQLite results store of sweeps: one row per point, committed as it finishes.

A store is a SQLite file (stdlib ``sqlite3``, WAL journal) with a ``meta``
table that marks it as an attndepth store (format and schema version) and a
``points`` table keyed by the point's config hash. Each point is written in
its own transaction, so a sweep killed at any moment (SIGINT or SIGKILL)
keeps every row it committed, and a rerun skips them.

Guarantees, each tested by fault injection (tests/test_simulations_store_faults.py):

* **Creation is atomic.** A new store is built in a temporary file beside the
  target and linked into place complete; a killed creation leaves either
  nothing at the path or a complete store, and concurrent creators all end up
  with the same store.
* **Refused files stay untouched.** An existing file is examined through an
  immutable read-only connection (no journal, WAL or lock file is created or
  checkpointed) and refused, byte for byte unchanged, unless it is an
  attndepth store of this schema version with the expected table layout.
* **Damage is reported, not raised.** A store SQLite cannot read gives one
  line naming the file and the command that copies every readable row into a
  new store (:func:`recover_store`, ``attndepth store recover``).
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import socket
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from attndepth.errors import DamagedStore, DiskFull, InvalidParameter, OutputFailed
from attndepth.simulations.output_files import CSV_TABLE, OutputFile, output_file

STORE_FORMAT = "attndepth-store"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points (
    hash TEXT PRIMARY KEY,
    measurement TEXT NOT NULL,
    config TEXT NOT NULL,
    metrics TEXT,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error TEXT,
    seed INTEGER NOT NULL,
    version TEXT NOT NULL,
    environment TEXT NOT NULL,
    seconds REAL NOT NULL,
    host TEXT NOT NULL,
    finished TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
"""

COLUMNS = ("hash", "measurement", "config", "metrics", "status", "error", "seed", "version",
           "environment", "seconds", "host", "finished")


@dataclass(frozen=True)
class PointResult:
    """What a worker returns for one sweep point (the driver alone writes it)."""

    hash: str
    measurement: str
    config: dict[str, Any]
    metrics: dict[str, Any] | None
    error: str | None
    seed: int
    version: str
    environment: dict[str, Any]
    seconds: float

    @property
    def status(self) -> str:
        return "ok" if self.error is None else "failed"


class ResultStore:
    """An open store. Use :func:`open_store`; close with :meth:`close` or ``with``."""

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self._connection = connection
        self.path = path

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._connection.close()

    def record(self, result: PointResult) -> None:
        """Insert or replace one point in its own transaction (committed on return).

        A full file system (SQLite's ``database or disk is full``) rolls the
        point back and raises :class:`~attndepth.errors.DiskFull` saying how
        many rows are kept and how to continue; any other failure to write (an
        I/O error, a file system turned read-only, a lock held too long) is
        :class:`~attndepth.errors.OutputFailed` the same way (CLI exit 3).
        """
        try:
            self._insert(result)
        except sqlite3.OperationalError as error:
            try:
                kept = self._connection.execute("SELECT count(*) FROM points").fetchone()[0]
            except sqlite3.Error:
                kept = "its"
            if "full" not in str(error):
                raise OutputFailed(f"could not write to the store {self.path} ({error}): "
                                   f"{kept} committed rows are kept; rerun the same command "
                                   f"to continue once it can be written") from None
            raise DiskFull(f"the disk holding {self.path} is full ({error}): {kept} committed "
                           f"rows are kept; free space and rerun the same command to continue, "
                           f"or copy the store elsewhere (attndepth store recover "
                           f"{self.path} --to NEW.sqlite) and rerun with NEW.sqlite") from None

    def _insert(self, result: PointResult) -> None:
        with self._connection:
            self._connection.execute(
                "INSERT OR REPLACE INTO points (hash, measurement, config, metrics, status, "
                "error, seed, version, environment, seconds, host) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (result.hash, result.measurement, json.dumps(result.config, sort_keys=True),
                 None if result.metrics is None else json.dumps(result.metrics, sort_keys=True),
                 result.status, result.error, result.seed, result.version,
                 json.dumps(result.environment, sort_keys=True), result.seconds,
                 socket.gethostname()),
            )

    def hashes(self, status: str | None = "ok") -> set[str]:
        """Hashes of stored points (of one status, or all with ``None``)."""
        query = "SELECT hash FROM points" + (" WHERE status = ?" if status else "")
        return {row[0] for row in self._connection.execute(query, (status,) if status else ())}

    def rows(self, measurement: str | None = None) -> list[dict[str, Any]]:
        """All points as dicts, config/metrics/environment decoded from JSON."""
        query = f"SELECT {', '.join(COLUMNS)} FROM points"
        arguments: tuple = ()
        if measurement is not None:
            query += " WHERE measurement = ?"
            arguments = (measurement,)
        out = []
        # text read as bytes and decoded here: a row whose bytes are not UTF-8 (or whose
        # JSON is broken) is named as damaged, instead of sqlite3 failing the whole query
        self._connection.text_factory = bytes
        try:
            fetched = self._connection.execute(query + " ORDER BY hash", arguments).fetchall()
        finally:
            self._connection.text_factory = str
        for row in fetched:
            record = _decoded(dict(zip(COLUMNS, row, strict=True)))
            if record is None:
                raise DamagedStore(f"store {self.path} has a damaged row (text that is not "
                                   f"UTF-8 or JSON); {_recover_hint(self.path)}")
            out.append(record)
        return out

    def table(self, measurement: str | None = None) -> list[dict[str, Any]]:
        """Flat rows: config and scalar metrics as columns (lists kept as JSON text)."""
        flat = []
        for row in self.rows(measurement):
            entry: dict[str, Any] = {"hash": row["hash"], "measurement": row["measurement"],
                                     "status": row["status"], "seed": row["seed"]}
            entry.update(row["config"])
            for key, value in (row["metrics"] or {}).items():
                entry[key] = value if np.isscalar(value) or value is None else json.dumps(value)
            entry["error"] = row["error"]
            entry["seconds"] = row["seconds"]
            entry["version"] = row["version"]
            flat.append(entry)
        return flat

    def structured_array(self, measurement: str | None = None) -> np.ndarray:
        """The flat table as a NumPy structured array (numbers as float64, others as str)."""
        table = self.table(measurement)
        if not table:
            return np.zeros(0)
        keys = list(dict.fromkeys(k for row in table for k in row))
        dtype: list[tuple[str, Any]] = []
        for key in keys:
            values = [row.get(key) for row in table]
            numeric = all(isinstance(v, int | float) and not isinstance(v, bool) or v is None
                          for v in values)
            if numeric:
                dtype.append((key, np.float64))
            else:
                dtype.append((key, f"U{max(len(str(v)) for v in values) or 1}"))
        records = [tuple(np.nan if row.get(k) is None and t == np.float64 else
                         (row.get(k) if t == np.float64 else str(row.get(k, "")))
                         for k, t in dtype) for row in table]
        return np.array(records, dtype=dtype)

    def export_csv(self, path: str | Path | OutputFile, measurement: str | None = None) -> int:
        """Write the flat table as CSV, whole; returns the number of rows.

        ``path`` may hold nothing or an earlier CSV table; the store itself, another
        database or any other file is refused (:mod:`attndepth.simulations.output_files`).
        """
        output = path if isinstance(path, OutputFile) else output_file(
            path, CSV_TABLE, reading=(self.path,))
        table = self.table(measurement)
        keys = list(dict.fromkeys(k for row in table for k in row))
        with output.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=keys)
            writer.writeheader()
            writer.writerows(table)
        return len(table)


def _decoded(record: dict[str, Any]) -> dict[str, Any] | None:
    """A row read with bytes for text: its text decoded and its JSON columns parsed, or
    None when any of it is damaged."""
    try:
        for key, value in record.items():
            if isinstance(value, bytes):
                record[key] = value.decode("utf-8")
        for key in ("config", "metrics", "environment"):
            record[key] = None if record[key] is None else json.loads(record[key])
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return record


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def _recover_hint(path: Path) -> str:
    return f"copy its readable rows with: attndepth store recover {path} --to NEW.sqlite"


def _probe(path: Path) -> None:
    """Examine an existing file without changing it; ValueError unless it is our store."""
    if not _is_sqlite(path):
        raise InvalidParameter(f"store {path} is not an attndepth store (not a SQLite file); "
                               f"it was left untouched")
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    try:
        with closing(sqlite3.connect(uri, uri=True)) as probe:
            tables = {row[0] for row in probe.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            meta = (dict(probe.execute("SELECT key, value FROM meta").fetchall())
                    if "meta" in tables else {})
            if meta.get("format") != STORE_FORMAT:
                raise InvalidParameter(f"store {path} is a SQLite file but not an attndepth store; "
                                       f"it was left untouched")
            schema = meta.get("schema", "")
            if schema != str(SCHEMA_VERSION):
                newer = schema.isdigit() and int(schema) > SCHEMA_VERSION
                raise InvalidParameter(
                    f"store {path} has schema version {schema or 'none'}, this attndepth "
                    f"reads version {SCHEMA_VERSION}"
                    + ("; it was written by a newer attndepth: upgrade" if newer else "")
                    + "; it was left untouched")
            columns = tuple(row[1] for row in probe.execute("PRAGMA table_info(points)"))
            if columns != COLUMNS:
                raise InvalidParameter(f"store {path} has the attndepth marker but its points "
                                       "table "
                                       f"has columns {list(columns)}, not {list(COLUMNS)}; it was "
                                       f"left untouched")
    except sqlite3.DatabaseError as error:
        raise DamagedStore(f"store {path} is damaged ({error}); {_recover_hint(path)}") from None


#: A creation file this old whose process is gone on this host is an orphan (seconds).
STALE_CREATION_SECONDS = 600


def _remove_orphaned_creations(path: Path) -> None:
    """Delete ``.NAME.creating-PID-*`` files left by creators killed mid-creation.

    Only files older than :data:`STALE_CREATION_SECONDS` whose PID names no
    live process on this host: a creator on another host sharing the directory
    finishes within seconds, far inside that age. They hold no data (an empty
    schema); the store itself is never touched.
    """
    now = time.time()
    for orphan in path.parent.glob(f".{path.name}.creating-*"):
        pid = orphan.name.rsplit(".creating-", 1)[1].split("-", 1)[0]
        try:
            if now - orphan.stat().st_mtime < STALE_CREATION_SECONDS or not pid.isdigit():
                continue
            os.kill(int(pid), 0)  # raises if no such process
        except ProcessLookupError:
            orphan.unlink(missing_ok=True)
        except OSError:  # gone meanwhile, or a live process of another user: keep
            continue


def _create(path: Path) -> None:
    """Build a complete, empty store in a temporary file and link it into place."""
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with closing(sqlite3.connect(temporary)) as connection:
            with connection:
                connection.executescript(_SCHEMA)
                connection.execute("INSERT INTO meta VALUES ('format', ?)", (STORE_FORMAT,))
                connection.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        try:
            os.link(temporary, path)  # fails if another creator was first: theirs is complete
        except FileExistsError:
            if path.stat().st_size == 0:  # an empty placeholder file: replace it
                os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _check_pages(connection: sqlite3.Connection, path: Path) -> None:
    """Known to be ours: check every page, with the write-ahead log applied."""
    problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        connection.close()
        raise DamagedStore(f"store {path} is damaged ({problems[0]}); {_recover_hint(path)}")


def open_store(path: str | Path, readonly: bool = False) -> ResultStore:
    """Open (or create) a store; a writable open removes the empty creation files of
    creators killed mid-creation (:func:`_remove_orphaned_creations`).

    Parameters
    ----------
    path : str or Path
    readonly : bool
        Open an existing store for reading only (figures, exports): nothing is
        created, and a store on a read-only file system or with read-only
        permissions can still be read.

    Raises
    ------
    ValueError
        The path is a directory or not a regular file, an existing file is not
        an attndepth store of this schema version (it is left untouched), or
        the store is damaged (the message says how to recover its rows).
    """
    path = Path(path)
    if path.is_dir():
        raise InvalidParameter(f"store {path} is a directory, not an attndepth store file")
    if path.exists() and not path.is_file():
        raise InvalidParameter(f"store {path} is not a regular file; it was left untouched")
    if readonly and not (path.is_file() and path.stat().st_size > 0):
        raise InvalidParameter(f"store {path} does not exist or is not a file")
    if not readonly and path.parent.is_dir():
        _remove_orphaned_creations(path)
    if path.exists() and path.stat().st_size > 0:
        _probe(path)
        if readonly:
            try:
                uri = f"{path.resolve().as_uri()}?mode=ro"
                connection = sqlite3.connect(uri, uri=True, timeout=30)
                _check_pages(connection, path)
                return ResultStore(connection, path)
            except sqlite3.DatabaseError as error:
                raise InvalidParameter(f"store {path} cannot be read ({error}); "
                                       f"{_recover_hint(path)}") from None
    else:
        if not path.parent.is_dir():
            raise InvalidParameter(f"cannot create store {path}: its folder {path.parent} does not "
                                   f"exist (or is not a folder)")
        try:
            _create(path)
        except (OSError, sqlite3.Error) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise InvalidParameter(f"cannot create store {path}: {reason}") from None
    try:
        connection = sqlite3.connect(path, timeout=30)
        connection.execute("PRAGMA busy_timeout = 30000")
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        _check_pages(connection, path)
    except sqlite3.DatabaseError as error:
        if "readonly" in str(error) or "read-only" in str(error):
            raise DamagedStore(f"store {path} is read-only: a sweep needs to write to it "
                               f"(copy it, or check its permissions)") from None
        raise DamagedStore(f"store {path} is damaged ({error}); {_recover_hint(path)}") from None
    return ResultStore(connection, path)


def check_store(path: str | Path) -> dict[str, Any]:
    """What SQLite's integrity check says of a store, without changing it.

    Returns
    -------
    dict
        ``path``, ``ok`` (bool), ``problems`` (list of str), ``rows`` (int or
        None when unreadable), ``schema``.
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidParameter(f"store {path} does not exist or is not a regular file")
    if not _is_sqlite(path):
        raise InvalidParameter(f"{path} is not a SQLite file, so not an attndepth store")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    report: dict[str, Any] = {"path": str(path), "ok": False, "problems": [], "rows": None,
                              "schema": None}
    # another application's database is examined without a connection that could touch
    # its -wal or -shm (immutable: SQLite reads the file alone and writes nothing)
    try:
        with closing(sqlite3.connect(f"{uri}&immutable=1", uri=True)) as probe:
            tables = {row[0] for row in probe.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            marker = (dict(probe.execute("SELECT key, value FROM meta").fetchall())
                      .get("format") if "meta" in tables else None)
    except sqlite3.DatabaseError:
        marker = STORE_FORMAT  # damaged beyond the schema: the full check below says how
    if marker != STORE_FORMAT:
        report["problems"].append("no attndepth store marker: not an attndepth store "
                                  "(left untouched)")
        return report
    try:
        with closing(sqlite3.connect(uri, uri=True)) as connection:
            meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
            report["schema"] = meta.get("schema")
            if meta.get("format") != STORE_FORMAT:
                report["problems"].append("no attndepth store marker")
            report["problems"] += [r[0] for r in connection.execute("PRAGMA integrity_check")
                                   if r[0] != "ok"]
            report["rows"] = connection.execute("SELECT count(*) FROM points").fetchone()[0]
            connection.text_factory = bytes
            damaged = sum(_decoded(dict(zip(COLUMNS, row, strict=True))) is None
                          for row in connection.execute(f"SELECT {', '.join(COLUMNS)} "
                                                        f"FROM points"))
            if damaged:
                report["problems"].append(f"{damaged} row(s) hold text that is not UTF-8 or "
                                          f"JSON")
    except sqlite3.DatabaseError as error:
        report["problems"].append(str(error))
    report["ok"] = not report["problems"]
    return report


def recover_store(source: str | Path, target: str | Path) -> dict[str, int]:
    """Copy every row SQLite can still read from ``source`` into a new store ``target``.

    The rows are walked in rowid order by seeking the next existing rowid
    (``rowid > r``, a B-tree search), so the cost is proportional to the rows
    that exist, whatever their rowids (a damaged varint or another writer can
    leave a rowid near 2^63). Each row is read alone, so a damaged page loses
    only the rows stored on it; where the seek itself fails, the walk jumps
    ahead by doubling steps until it reads again. ``source`` is opened
    read-only and never changed.

    Returns
    -------
    dict
        ``recovered`` rows, and ``unreadable``: the rows and damaged stretches
        of the table that could not be read.
    """
    source, target = Path(source), Path(target)
    if not source.is_file() or not _is_sqlite(source):
        raise InvalidParameter(f"{source} is not a SQLite file")
    if target.exists():
        raise InvalidParameter(f"{target} exists: recover into a new file")
    uri = f"{source.resolve().as_uri()}?mode=ro"
    recovered = unreadable = 0
    select = f"SELECT {', '.join(COLUMNS)} FROM points WHERE rowid = ?"
    with closing(sqlite3.connect(uri, uri=True)) as connection, open_store(target) as store:
        after = 0
        while True:
            found = _next_rowid(connection, after)
            if found is None:
                break
            rowid, skipped = found
            unreadable += skipped
            try:
                row = connection.execute(select, (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                row = None
                unreadable += 1
            if row is not None and _decoded(dict(zip(COLUMNS, row, strict=True))) is None:
                row = None  # its text is not UTF-8 or its JSON is broken
                unreadable += 1
            if row is not None:
                with store._connection:
                    store._connection.execute(
                        f"INSERT OR REPLACE INTO points ({', '.join(COLUMNS)}) "
                        f"VALUES ({', '.join('?' * len(COLUMNS))})", row)
                recovered += 1
            after = rowid
    return {"recovered": recovered, "unreadable": unreadable}


#: Largest rowid SQLite stores.
_MAX_ROWID = 2**63 - 1


def _next_rowid(connection: sqlite3.Connection, after: int) -> tuple[int, int] | None:
    """The next existing rowid above ``after`` and how many damaged stretches were
    jumped on the way to it; None when there is none."""
    seek = "SELECT rowid FROM points WHERE rowid > ? ORDER BY rowid LIMIT 1"
    step, skipped, start = 1, 0, after
    while start < _MAX_ROWID:
        try:
            row = connection.execute(seek, (start,)).fetchone()
            return None if row is None else (row[0], skipped)
        except sqlite3.DatabaseError:  # a damaged page on the way: jump ahead
            skipped += 1
            start = min(_MAX_ROWID, after + step)
            step *= 2
    return None


@contextmanager
def store_at(path: str | Path) -> Iterator[ResultStore]:
    """``with store_at(path) as store:`` — open and always close."""
    with closing(open_store(path)) as store:
        yield store


def finished_rows(path: str | Path, measurement: str | None = None) -> list[dict[str, Any]]:
    """The ``ok`` rows of an existing store (of one measurement, or all), read-only.

    Raises
    ------
    ValueError
        The file does not exist, or holds no finished point of that measurement.
    """
    if not Path(path).is_file():
        raise InvalidParameter(f"store {path} does not exist or is not a file")
    with open_store(path, readonly=True) as store:
        rows = [row for row in store.rows(measurement) if row["status"] == "ok"]
    if not rows:
        raise InvalidParameter(f"store {path} holds no finished {measurement or 'sweep'} points")
    return rows
