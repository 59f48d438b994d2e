"""The SQLite results store of sweeps: one row per point, committed as it finishes.

A store is a SQLite file (stdlib ``sqlite3``, WAL journal) with a ``meta``
table that marks it as an attndepth store and a ``points`` table keyed by the
point's config hash. Each point is written in its own transaction, so a sweep
killed at any moment (SIGINT or SIGKILL) keeps every row it committed, and a
rerun skips them. A file that is not an attndepth store is refused with a
``ValueError`` and never modified.
"""

from __future__ import annotations

import csv
import json
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

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
        """Insert or replace one point in its own transaction (committed on return)."""
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
        for row in self._connection.execute(query + " ORDER BY hash", arguments):
            record = dict(zip(COLUMNS, row, strict=True))
            for key in ("config", "metrics", "environment"):
                record[key] = None if record[key] is None else json.loads(record[key])
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
        dtype = []
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

    def export_csv(self, path: str | Path, measurement: str | None = None) -> int:
        """Write the flat table as CSV; returns the number of rows."""
        table = self.table(measurement)
        keys = list(dict.fromkeys(k for row in table for k in row))
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=keys)
            writer.writeheader()
            writer.writerows(table)
        return len(table)


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def open_store(path: str | Path) -> ResultStore:
    """Open (or create) a store. Refuses any existing file that is not an attndepth store."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"store {path} is a directory, not an attndepth store file")
    exists = path.exists() and path.stat().st_size > 0
    if exists and not _is_sqlite(path):
        raise ValueError(f"store {path} is not an attndepth store (not a SQLite file); "
                         f"it was left untouched")
    try:
        connection = sqlite3.connect(path, timeout=30)
    except sqlite3.Error as error:
        raise ValueError(f"cannot open store {path}: {error}") from None
    try:
        if exists:
            tables = {row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            marker = (connection.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
                      if "meta" in tables else None)
            if marker is None or marker[0] != STORE_FORMAT or "points" not in tables:
                raise ValueError(f"store {path} is a SQLite file but not an attndepth store; "
                                 f"it was left untouched")
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        with connection:
            connection.executescript(_SCHEMA)
            connection.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (STORE_FORMAT,))
            connection.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                               (str(SCHEMA_VERSION),))
    except sqlite3.DatabaseError as error:
        connection.close()
        raise ValueError(f"store {path} is not a readable attndepth store: {error}") from None
    except ValueError:
        connection.close()
        raise
    return ResultStore(connection, path)


@contextmanager
def store_at(path: str | Path) -> Iterator[ResultStore]:
    """``with store_at(path) as store:`` — open and always close."""
    with closing(open_store(path)) as store:
        yield store
