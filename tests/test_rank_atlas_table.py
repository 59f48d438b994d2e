"""The atlas table: its rows, the shipped file, the loader's errors, a sweep's export."""

import dataclasses
import math

import pytest

import attndepth
from attndepth.errors import AttndepthError, MissingExtra
from attndepth.rank.atlas_table import (
    ATLAS_COLUMNS,
    CERTIFICATES,
    Atlas,
    AtlasRow,
    atlas,
    atlas_from_store,
    write_atlas,
)
from attndepth.rank.grids import SeparationRankConfig
from attndepth.rank.measure import rank_with_bounds
from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep
from attndepth.theory.separation_rank import separation_rank_bounds

SHIPPED = atlas()


def _row(**changes) -> AtlasRow:
    return dataclasses.replace(SHIPPED[0], **changes)


def test_the_shipped_atlas_loads_with_every_column_and_certificate():
    assert attndepth.atlas is atlas and len(SHIPPED) > 1000
    assert set(SHIPPED.column("certificate")) <= set(CERTIFICATES)
    assert list(SHIPPED) == sorted(SHIPPED, key=lambda row: row.key)
    row = SHIPPED.find(2, 3, 1, 0, 9, 9)  # beyond the saturated sizes: |P| = 3, |Q| = 2
    assert row is not None and row.key == (2, 3, 1, 0, 3, 2)
    assert row.command.startswith("attndepth seprank --width 2 --depth 3 --tokens 5 "
                                  "--partition sizes=3/2")


def test_every_shipped_row_is_within_its_bounds_and_its_certificate_is_coherent():
    for row in SHIPPED:
        assert 0 < row.rank <= row.bound_best <= row.bound_bigraded or row.residual
        if row.certificate == "proved":
            assert row.rank == row.bound_best or row.rank == row.bound_bigraded \
                or row.method == "blocks"
        if row.certificate == "saturated":
            assert 0 < row.failure_probability < 1
        assert all(rank < bound for _, rank, bound in row.short_blocks)
        assert row.version and row.seed == 0


@pytest.mark.parametrize("key", [(2, 3, 1, 0, 1, 2), (3, 2, 1, 1, 2, 3), (4, 2, 2, 0, 1, 3),
                                 (5, 1, 5, 1, 6, 5)])
def test_shipped_rows_hold_the_proved_bounds(key):
    row = SHIPPED.find(*key)
    bounds = separation_rank_bounds(row.width, row.depth, row.p_size, row.q_size, row.residual)
    assert (row.bound_monomials, row.bound_q_side, row.bound_p_side, row.bound_bigraded,
            row.bound_best) == (bounds.monomials, bounds.q_side, bounds.p_side,
                                bounds.bigraded, bounds.best)


@pytest.mark.parametrize("key", [(3, 2, 1, 0, 1, 2), (2, 2, 2, 0, 2, 2), (4, 2, 1, 1, 2, 2),
                                 (6, 2, 1, 0, 2, 1)])
def test_shipped_rows_are_measured_again_by_their_command(key):
    row = SHIPPED.find(*key)
    config = SeparationRankConfig(width=row.width, depth=row.depth, heads=row.heads,
                                  tokens=row.p_size + row.q_size, residual=row.residual,
                                  partition=f"sizes={row.p_size}/{row.q_size}")
    again = rank_with_bounds(config, row.seed, row.method, max_points=row.max_points)
    assert again["rank"] == row.rank and again["prime"] == row.prime


def test_where_find_and_column():
    plain = SHIPPED.where(width=2, heads=1, residual=0)
    assert {row.width for row in plain} == {2} and isinstance(plain, Atlas)
    assert SHIPPED.find(9, 1, 1, 0, 1, 1) is None
    with pytest.raises(ValueError, match="no atlas column 'colour'"):
        SHIPPED.column("colour")
    with pytest.raises(ValueError, match="no atlas column"):
        SHIPPED.where(colour=1)
    assert isinstance(SHIPPED[:3], Atlas) and len(SHIPPED[:3]) == 3
    with pytest.raises(ValueError, match="twice"):
        Atlas([SHIPPED[0], SHIPPED[0]])


def test_to_pandas_without_pandas_says_what_to_do(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("no pandas")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(MissingExtra, match="pip install pandas"):
        SHIPPED.to_pandas()


def test_write_and_read_round_trip(tmp_path):
    rows = Atlas([_row(), _row(width=9, failure_probability=None, certificate="lower-bound",
                           short_blocks=((3, 5, 7),), max_seconds=7200.0)])
    path = tmp_path / "atlas.csv"
    write_atlas(rows, path)
    again = atlas(path)
    assert list(again) == list(rows)
    assert path.read_text().splitlines()[0] == ",".join(ATLAS_COLUMNS)
    assert not (tmp_path / "atlas.csv.partial").exists()
    assert "--max-seconds" not in again[0].command  # the default limit goes unsaid
    assert again[1].command.endswith("--max-seconds 7200 --seed 0")


@pytest.mark.parametrize("text, message", [
    ("a,b\n1,2\n", "not an atlas file"),
    (",".join(ATLAS_COLUMNS) + "\n" + ",".join(["x"] * len(ATLAS_COLUMNS)) + "\n",
     "line 2: not an atlas row"),
])
def test_a_file_that_is_not_an_atlas_is_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(AttndepthError, match=message) as raised:
        atlas(path)
    assert isinstance(raised.value, ValueError) and "\n" not in str(raised.value)


@pytest.mark.parametrize("limit", [0.0, -5.0, float("nan")])
def test_a_row_without_a_positive_time_limit_is_refused(tmp_path, limit):
    path = tmp_path / "atlas.csv"
    write_atlas(Atlas([_row(max_seconds=limit)]), path)
    with pytest.raises(ValueError, match="line 2: not an atlas row .max_seconds"):
        atlas(path)


def test_missing_file_and_wrong_type():
    with pytest.raises(ValueError, match="atlas /nonexistent/atlas.csv: cannot be read"):
        atlas("/nonexistent/atlas.csv")
    with pytest.raises(TypeError, match="str or Path"):
        atlas(3)


def test_a_sweep_of_atlas_points_exports_rows_with_their_certificates(tmp_path):
    spec = parse_spec({"measurement": "seprank", "seeds": [0],
                       "zip": {"width": [2, 3, 2], "depth": [2, 2, 1], "heads": [1, 1, 2],
                               "residual": [0, 0, 1], "tokens": [3, 3, 2],
                               "partition": ["sizes=1/2", "sizes=1/2", "sizes=1/1"],
                               "method": ["blocks", "blocks", "exact"],
                               "max_points": [64, 64, 64],
                               "max_seconds": [3600, 1200, 1200]}})
    store = tmp_path / "atlas.sqlite"
    run_sweep(spec, store, workers=1, progress=False)
    table, failed = atlas_from_store(store)
    assert not failed and len(table) == 3
    below = table.find(3, 2, 1, 0, 1, 2)
    assert (below.rank, below.bound_bigraded, below.certificate) == (39, 41, "saturated")
    assert below.short_blocks and below.deficit == 2
    assert not math.isnan(below.failure_probability)
    assert table.find(2, 1, 2, 1, 1, 1).method == "exact"
    assert table.find(2, 2, 1, 0, 1, 2).max_seconds == 3600  # the limit it ran with
    assert "--max-seconds 3600" in table.find(2, 2, 1, 0, 1, 2).command
    with pytest.raises(ValueError, match="does not exist"):
        atlas_from_store(tmp_path / "none.sqlite")


@pytest.mark.parametrize("key", [("x", 2, 1, 0, 1, 1), (2, 2, 1, 2, 1, 1), (2, 0, 1, 0, 1, 1)])
def test_find_refuses_a_malformed_class(key):
    with pytest.raises(ValueError, match="must be"):
        SHIPPED.find(*key)


@pytest.mark.parametrize("change, message", [
    ({"width": -3}, "width must be >= 1"),
    ({"residual": 2}, "residual must be 0 or 1"),
    ({"failure_probability": math.nan}, "failure_probability must lie in"),
    ({"failure_probability": -0.1}, "failure_probability must lie in"),
    ({"certificate": "proved", "failure_probability": 0.0, "rank": 1},
     "a proved rank equals its bound"),
    ({"certificate": "saturated", "failure_probability": None},
     "states its failure probability"),
    ({"bound_best": 10**6}, "not the least of the bounds"),
    ({"method": "guess"}, "method must be one of"),
    ({"short_blocks": ((1, 5, 5),)}, "short_blocks"),
    ({"seconds": math.inf}, "both finite"),
])
def test_a_row_no_measurement_can_produce_is_refused(tmp_path, change, message):
    path = tmp_path / "atlas.csv"
    write_atlas(Atlas([_row(**change)]), path)
    with pytest.raises(ValueError, match=f"line 2: not an atlas row .*{message}"):
        atlas(path)


def _hostile_cells():
    from hypothesis import strategies as st

    return st.sampled_from(["", "nan", "-1", "inf", "1e400", "9" * 5000, "\x00", "[[[[", "null",
                            "[" * 3000 + "]" * 3000, "{}", "[[1,2]]", "é", "1.5", "proved",
                            "\"", "0"]) | st.text(max_size=12)


def test_a_damaged_cell_is_one_error_or_a_possible_row(tmp_path):
    """Any one cell of a real row replaced by anything: a ValueError naming the line, or a
    row that passes every check (never another exception)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    rows = list(attndepth.atlas())[:40]
    path = tmp_path / "atlas.csv"
    write_atlas(Atlas(rows), path)
    lines = path.read_text().splitlines()

    @settings(max_examples=150, deadline=None)
    @given(line=st.integers(1, len(lines) - 1), column=st.integers(0, len(ATLAS_COLUMNS) - 2),
           cell=_hostile_cells())
    def damaged(line, column, cell):
        import csv
        import io

        record = next(csv.reader([lines[line]]))
        record[column] = cell
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(record)
        target = tmp_path / "damaged.csv"
        target.write_text("\n".join([*lines[:line], out.getvalue().rstrip("\n"),
                                     *lines[line + 1:]]) + "\n")
        try:
            loaded = atlas(target)
        except ValueError as error:
            assert isinstance(error, AttndepthError) and "\n" not in str(error)
            return
        assert len(loaded) == len(rows)

    damaged()


class _Printer:
    """What IPython hands ``_repr_pretty_``: an object with ``text``."""

    def __init__(self):
        self.shown = ""

    def text(self, value):
        self.shown += value


def test_a_notebook_shows_the_atlas_as_a_summary():
    from attndepth import atlas

    table = atlas()
    printer = _Printer()
    table._repr_pretty_(printer, False)
    lines = printer.shown.splitlines()
    assert lines[0].startswith(f"Atlas: {len(table):,} size classes")
    assert any("proved" in line for line in lines) and "atlas.find(" in lines[-1]
    assert table[:0].summary() == "Atlas: no size classes"
    shown = table._repr_html_()
    assert shown.count("<tr>") == 1 + table.SHOWN_ROWS  # the header and the first rows
    assert f"the first {table.SHOWN_ROWS} of {len(table):,} rows shown" in shown
    assert "atlas.where(width=4)" in shown
