"""Fault injection on the store: kills during creation, damaged pages, foreign and crafted
files, concurrent creators. No committed row is lost, no store is stranded, no foreign file
changes (seeded: the same trials every run)."""

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attndepth.cli.main import main
from attndepth.simulations.sweeps.store import (
    COLUMNS,
    SCHEMA_VERSION,
    STORE_FORMAT,
    PointResult,
    check_store,
    open_store,
    recover_store,
)

CREATE_MANY = ("import sys; from attndepth.simulations.sweeps.store import open_store\n"
               "for k in range(100000): open_store(f'{sys.argv[1]}/s{k}.sqlite').close()\n")


def _result(k: int) -> PointResult:
    return PointResult(hashlib.sha256(str(k).encode()).hexdigest(), "similarity",
                       {"k": k, "pad": "x" * 200}, {"value": k}, None, k, "0", {}, 0.1)


def _digest(*paths: Path) -> dict[str, str | None]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None
            for p in paths}


def test_killed_creation_leaves_nothing_or_a_complete_store(tmp_path):
    # A process creates stores one after another; SIGKILL lands at a random moment,
    # usually inside some creation. Every path that exists must be a complete store.
    rng = random.Random(20261130)
    checked = 0
    for trial in range(6):
        folder = tmp_path / f"trial{trial}"
        folder.mkdir()
        process = subprocess.Popen([sys.executable, "-c", CREATE_MANY, str(folder)])
        deadline = time.time() + 30
        while not list(folder.glob("s*.sqlite")) and time.time() < deadline:
            time.sleep(0.01)  # wait until creations are under way
        time.sleep(rng.uniform(0.0, 0.3))
        process.send_signal(signal.SIGKILL)
        process.wait()
        for path in folder.glob("s*.sqlite"):
            with open_store(path) as store:  # never "not an attndepth store"
                assert store.hashes(None) == set()
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("trial", range(3))
def test_concurrent_creators_share_one_store(tmp_path, trial):
    path = tmp_path / "shared.sqlite"
    code = ("import sys; from attndepth.simulations.sweeps.store import open_store\n"
            "from tests.test_simulations_store_faults import _result\n"
            "with open_store(sys.argv[1]) as s: s.record(_result(int(sys.argv[2])))\n")
    root = Path(__file__).resolve().parent.parent
    processes = [subprocess.Popen([sys.executable, "-c", code, str(path), str(k)], cwd=root,
                                  stderr=subprocess.PIPE, text=True) for k in range(6)]
    errors = [p.communicate()[1] for p in processes]
    assert all(p.returncode == 0 for p in processes), errors
    with open_store(path) as store:
        assert len(store.hashes()) == 6
    assert not list(tmp_path.glob(".shared.sqlite.creating-*"))


def _store_with_rows(path: Path, rows: int) -> None:
    with open_store(path) as store:
        for k in range(rows):
            store.record(_result(k))
    with sqlite3.connect(path) as connection:  # fold the log into the file
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def test_damaged_pages_give_one_line_and_recover_keeps_the_readable_rows(tmp_path, capsys):
    path = tmp_path / "damaged.sqlite"
    _store_with_rows(path, 400)
    data = bytearray(path.read_bytes())
    page = 4096
    pages = len(data) // page
    rng = random.Random(7)
    for index in rng.sample(range(pages // 2, pages - 1), 2):  # two leaf pages of rows
        data[index * page: index * page + 64] = bytes(rng.randrange(256) for _ in range(64))
    path.write_bytes(bytes(data))
    before = _digest(path)
    with pytest.raises(ValueError, match="damaged.*attndepth store recover"):
        open_store(path)
    assert main(["figures", "--store", str(path), "--out", str(tmp_path / "f")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "recover" in error[0]
    assert not check_store(path)["ok"]
    assert main(["store", "check", str(path)]) == 1
    counts = recover_store(path, tmp_path / "rescued.sqlite")
    assert counts["recovered"] >= 300 and counts["recovered"] + counts["unreadable"] <= 400 + 64
    with open_store(tmp_path / "rescued.sqlite") as rescued:
        assert len(rescued.hashes()) == counts["recovered"]
    assert _digest(path) == before  # the damaged store itself is never changed


def test_recovery_costs_the_rows_that_exist_not_the_largest_rowid(tmp_path):
    # a store `store check` calls ok whose last row sits at rowid 2^40 (a damaged rowid
    # varint, or another writer): recovery once walked every rowid up to it, for days
    path = tmp_path / "sparse.sqlite"
    with open_store(path) as store:
        for k in range(3):
            store.record(_result(k))
    with sqlite3.connect(path) as connection:
        row = connection.execute(f"SELECT {', '.join(COLUMNS)} FROM points LIMIT 1").fetchone()
        values = dict(zip(COLUMNS, row, strict=True))
        values["hash"] = hashlib.sha256(b"far").hexdigest()
        connection.execute(f"INSERT INTO points (rowid, {', '.join(COLUMNS)}) VALUES "
                           f"(?, {', '.join('?' * len(COLUMNS))})", (2**40, *values.values()))
    assert check_store(path)["ok"]
    counts = recover_store(path, tmp_path / "rescued.sqlite")  # 4 seeks, not 2^40 reads
    assert counts == {"recovered": 4, "unreadable": 0}


def test_foreign_wal_database_is_refused_byte_for_byte_untouched(tmp_path):
    path = tmp_path / "app.sqlite"
    keeper = sqlite3.connect(path)  # another application, still running, in WAL mode
    keeper.execute("PRAGMA journal_mode=WAL")
    keeper.execute("CREATE TABLE t (x)")
    keeper.execute("INSERT INTO t VALUES (1)")
    keeper.commit()
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    before = _digest(*files)
    assert all(before.values())
    with pytest.raises(ValueError, match="not an attndepth store"):
        open_store(path)
    assert _digest(*files) == before
    keeper.close()


def test_dev_null_and_other_special_files_are_refused():
    with pytest.raises(ValueError, match="not a regular file"):
        open_store("/dev/null")
    assert not os.path.exists("/dev/null-journal")


def _crafted(path: Path, schema: str, columns: str) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        connection.execute("INSERT INTO meta VALUES ('format', ?)", (STORE_FORMAT,))
        connection.execute("INSERT INTO meta VALUES ('schema', ?)", (schema,))
        connection.execute(f"CREATE TABLE points ({columns})")


@pytest.mark.parametrize("schema, columns, match", [
    (str(SCHEMA_VERSION + 1), ", ".join(COLUMNS), "newer attndepth"),
    ("0", ", ".join(COLUMNS), "schema version 0"),
    (str(SCHEMA_VERSION), "hash, value", "columns"),
])
def test_crafted_stores_are_refused_untouched(tmp_path, schema, columns, match):
    path = tmp_path / "crafted.sqlite"
    _crafted(path, schema, columns)
    before = _digest(path)
    with pytest.raises(ValueError, match=match):
        open_store(path)
    assert _digest(path) == before


def test_export_onto_the_store_is_refused(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text('measurement = "similarity"\n[fixed]\nvariant = "pure"\ndepth = 2\n'
                    'tokens = 3\nwidth = 4\n')
    store = tmp_path / "s.sqlite"
    assert main(["sweep", str(spec), "--store", str(store), "--quiet"]) == 0
    capsys.readouterr()
    before = _digest(store)
    for target in (store, Path(f"{store}-wal"), spec):
        assert main(["sweep", str(spec), "--store", str(store), "--export", str(target),
                     "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "left untouched" in err and len(err.strip().splitlines()) == 1
    assert _digest(store) == before and open_store(store).hashes() != set()


@pytest.mark.parametrize("where", ["missing/x.sqlite", "file.txt/x.sqlite"])
def test_a_store_that_cannot_be_created_is_one_line(tmp_path, capsys, where):
    (tmp_path / "file.txt").write_text("not a folder")
    with pytest.raises(ValueError, match="cannot create store"):
        open_store(tmp_path / where)
    spec = tmp_path / "spec.toml"
    spec.write_text('measurement = "similarity"\n[fixed]\nvariant = "pure"\ndepth = 1\n'
                    'tokens = 2\nwidth = 2\n')
    assert main(["sweep", str(spec), "--store", str(tmp_path / where), "--quiet"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_writable_open_removes_orphaned_creation_files_only(tmp_path):
    """A creator killed mid-creation leaves .NAME.creating-PID-*; the next writable open
    removes it once it is older than STALE_CREATION_SECONDS and its process is gone, and
    keeps a recent one, a live process's and anything else."""
    from attndepth.simulations.sweeps.store import STALE_CREATION_SECONDS

    path = tmp_path / "s.sqlite"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    old = time.time() - STALE_CREATION_SECONDS - 60
    orphan = tmp_path / f".s.sqlite.creating-{dead}-abcd1234"
    recent = tmp_path / f".s.sqlite.creating-{dead}-ffff0000"
    alive = tmp_path / f".s.sqlite.creating-{os.getpid()}-00000000"
    other = tmp_path / f".t.sqlite.creating-{dead}-12345678"
    for stray in (orphan, recent, alive, other):
        stray.write_bytes(b"")
    for stray in (orphan, alive, other):
        os.utime(stray, (old, old))
    open_store(path, readonly=False).close()
    assert not orphan.exists()
    assert recent.exists() and alive.exists() and other.exists()
    open_store(path, readonly=True).close()  # a read-only open touches nothing


def test_a_full_disk_is_one_line_and_exit_3_and_the_committed_rows_resume(
        tmp_path, monkeypatch, capsys):
    import sqlite3

    spec = tmp_path / "spec.toml"
    spec.write_text('measurement = "similarity"\n[fixed]\nvariant = "post-ln"\ntokens = 4\n'
                    'width = 8\n[grid]\ndepth = [' + ", ".join(map(str, range(1, 61))) + ']\n')
    store = tmp_path / "s.sqlite"
    connect = sqlite3.connect

    def small_disk(*args, **kwargs):  # SQLite's own limit: 'database or disk is full'
        connection = connect(*args, **kwargs)
        connection.execute("PRAGMA max_page_count = 12")
        return connection

    monkeypatch.setattr(sqlite3, "connect", small_disk)
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "1", "--quiet"]) == 3
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "is full" in line and "committed rows are kept" in line and "rerun" in line
    monkeypatch.setattr(sqlite3, "connect", connect)  # space freed
    kept = len(open_store(store).hashes())
    assert 0 < kept < 60
    assert main(["store", "check", str(store)]) == 0
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "1", "--quiet"]) == 0
    assert len(open_store(store).hashes()) == 60


@pytest.mark.parametrize("damage", [b"\xff", b"{not json"])
def test_a_row_whose_text_is_not_utf8_or_json_is_named_as_damage(tmp_path, capsys, damage):
    spec = tmp_path / "spec.toml"
    spec.write_text('measurement = "similarity"\n[fixed]\nvariant = "pure"\ndepth = 2\n'
                    'tokens = 3\nwidth = 4\n')
    store = tmp_path / "s.sqlite"
    assert main(["sweep", str(spec), "--store", str(store), "--quiet"]) == 0
    with sqlite3.connect(store) as connection:
        connection.execute("UPDATE points SET metrics = CAST(? AS TEXT)",
                           (b'{"t_sim": [0.5' + damage + b']}',))
    connection.close()
    capsys.readouterr()
    assert main(["figures", "--store", str(store), "--out", str(tmp_path / "f")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "damaged row" in line and "store recover" in line
    assert main(["store", "check", str(store)]) == 1
    assert "not UTF-8 or JSON" in capsys.readouterr().out
    assert main(["store", "recover", str(store), "--to", str(tmp_path / "r.sqlite")]) == 0
    assert "0 rows recovered, 1 unreadable" in capsys.readouterr().out


def test_store_check_leaves_another_applications_wal_database_untouched(tmp_path):
    path = tmp_path / "theirs.sqlite"
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE notes (x)")
    writer.execute("INSERT INTO notes VALUES (1)")
    writer.commit()  # the application keeps its connection: -wal and -shm stay
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    before = _digest(*files)
    report = check_store(path)
    assert not report["ok"] and "no attndepth store marker" in report["problems"][0]
    assert _digest(*files) == before
    writer.close()


def test_a_store_that_cannot_be_written_is_one_line_and_exit_3(tmp_path, monkeypatch,
                                                               capsys):
    from attndepth.simulations.sweeps import store as stores

    spec = tmp_path / "spec.toml"
    spec.write_text('measurement = "similarity"\n[fixed]\nvariant = "pure"\ntokens = 3\n'
                    'width = 4\n[grid]\ndepth = [1, 2, 3]\n')
    store = tmp_path / "s.sqlite"
    insert, calls = stores.ResultStore._insert, [0]

    def failing_disk(self, result):  # the second point meets an I/O error
        calls[0] += 1
        if calls[0] == 2:
            raise sqlite3.OperationalError("disk I/O error")
        insert(self, result)

    monkeypatch.setattr(stores.ResultStore, "_insert", failing_disk)
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "1", "--quiet"]) == 3
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "disk I/O error" in line and "1 committed rows are kept" in line
    monkeypatch.setattr(stores.ResultStore, "_insert", insert)
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "1", "--quiet"]) == 0
    assert len(open_store(store).hashes()) == 3
