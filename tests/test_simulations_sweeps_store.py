import sqlite3

import numpy as np
import pytest

from attndepth.simulations.sweeps.store import PointResult, open_store


def _result(hash_="a" * 64, error=None, depth=4):
    return PointResult(hash_, "similarity", {"depth": depth, "variant": "pure"},
                       None if error else {"t": 0.5, "curve": [1, 2]}, error, 3, "0.1",
                       {"numpy": "x"}, 0.25)


def test_record_rows_table_array_csv(tmp_path):
    path = tmp_path / "s.sqlite"
    with open_store(path) as store:
        store.record(_result())
        store.record(_result("b" * 64, error="ValueError: boom", depth=5))
        assert store.hashes() == {"a" * 64}
        assert store.hashes(None) == {"a" * 64, "b" * 64}
        rows = store.rows()
        assert rows[0]["metrics"] == {"t": 0.5, "curve": [1, 2]} and rows[1]["status"] == "failed"
        table = store.table()
        assert table[0]["curve"] == "[1, 2]" and table[0]["depth"] == 4
        array = store.structured_array()
        assert array["depth"].tolist() == [4.0, 5.0] and np.isnan(array["t"][1])
        assert store.export_csv(tmp_path / "x.csv") == 2
    assert (tmp_path / "x.csv").read_text().startswith("hash,")


def test_record_replaces_same_hash(tmp_path):
    with open_store(tmp_path / "s.sqlite") as store:
        store.record(_result(error="boom"))
        store.record(_result())
        assert len(store.rows()) == 1 and store.rows()[0]["status"] == "ok"


def test_rows_survive_reopen(tmp_path):
    path = tmp_path / "s.sqlite"
    with open_store(path) as store:
        store.record(_result())
    with open_store(path) as store:
        assert store.hashes() == {"a" * 64}


@pytest.mark.parametrize("content", [b"not a database at all", b"SQLite format 3\x00garbage"])
def test_foreign_files_refused_and_untouched(tmp_path, content):
    path = tmp_path / "foreign.sqlite"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not"):
        open_store(path)
    assert path.read_bytes() == content


def test_other_sqlite_database_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x)")
    before = path.read_bytes()
    with pytest.raises(ValueError, match="not an attndepth store"):
        open_store(path)
    assert path.read_bytes() == before


def test_directory_refused(tmp_path):
    with pytest.raises(ValueError, match="directory"):
        open_store(tmp_path)


def test_finished_rows_refuses_a_missing_or_empty_store(tmp_path):
    from attndepth.simulations.sweeps.store import finished_rows

    with pytest.raises(ValueError, match="does not exist"):
        finished_rows(tmp_path / "none.sqlite")
    open_store(tmp_path / "empty.sqlite").close()
    with pytest.raises(ValueError, match="no finished train points"):
        finished_rows(tmp_path / "empty.sqlite", "train")
