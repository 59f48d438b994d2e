"""Fuzzed reliability surfaces: output paths, user-claim behaviours, map grids, atlas rows,
hostile files for every reader, and concurrent writers of every read-modify-write.

Every case ends in a result or an attndepth error — never another exception, a
CLI exit 4 or a lost file. The README's command runs a few cases of each; CI's
fuzz run (``.ci/run``) runs the ``reliability`` profile, 2,500 cases a test (24 for the
concurrent writers, each a set of processes) and 12,524 in all::

    pytest --hypothesis-profile=reliability tests/test_fuzz_reliability.py
"""

import csv
import hashlib
import io
import os
import shutil
import sqlite3
import stat
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attndepth.errors import AttndepthError
from attndepth.framework import pool_runs, registry
from attndepth.framework.declarations import Estimate
from attndepth.framework.model import Claim, Outcome
from attndepth.framework.validity import parse_grid
from attndepth.rank.atlas_table import ATLAS_COLUMNS, Atlas, atlas, write_atlas
from attndepth.simulations.output_files import CSV_TABLE, PDF, output_file, text_kind
from tests.hostile_files import all_readers, hostile
from tests.test_simulations_output_files import HARNESS, _kept, _write_many

NOTES = text_kind("a note", r"note:")
#: What may stand where an output goes.
ENTRIES = ["missing", "empty", "own kind", "foreign text", "binary", "sqlite", "directory",
           "link to own kind", "link to /dev/null", "dangling link", "pipe", "in a file",
           "read-only place"]


def _state(path: Path) -> tuple:
    """Everything that must not be lost: the kind of entry and its bytes."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return ("missing",)
    if stat.S_ISLNK(mode):
        return ("link", os.readlink(path), _state(Path(os.path.realpath(path)))
                if os.path.exists(path) and not stat.S_ISCHR(os.stat(path).st_mode) else None)
    if stat.S_ISREG(mode):
        return ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    if stat.S_ISDIR(mode):
        return ("dir", sorted(p.name for p in path.iterdir()))
    return ("other", stat.S_IFMT(mode))


def _place(entry: str, where: Path, content: bytes) -> Path:
    """Put ``entry`` at ``where/out.txt`` (or say where the output goes); the path."""
    target = where / "out.txt"
    if entry == "empty":
        target.touch()
    elif entry == "own kind":
        target.write_bytes(b"note: " + content)
    elif entry == "foreign text":
        target.write_bytes(b"my work " + content)
    elif entry == "binary":
        target.write_bytes(b"\x00\xff" + content)
    elif entry == "sqlite":
        with sqlite3.connect(target) as connection:
            connection.execute("CREATE TABLE t (x)")
        connection.close()
    elif entry == "directory":
        target.mkdir()
        (target / "inside").write_bytes(content)
    elif entry == "link to own kind":
        (where / "real.txt").write_bytes(b"note: " + content)
        target.symlink_to(where / "real.txt")
    elif entry == "link to /dev/null":
        target.symlink_to(os.devnull)
    elif entry == "dangling link":
        target.symlink_to(where / "nowhere.txt")
    elif entry == "pipe":
        os.mkfifo(target)
    elif entry == "in a file":
        (where / "file").write_bytes(content)
        return where / "file" / "out.txt"
    elif entry == "read-only place":
        return Path("/proc/version")  # a file no process may replace, even as root
    return target


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(entry=st.sampled_from(ENTRIES), content=st.binary(max_size=32),
       replace=st.booleans(), fail_while_writing=st.booleans())
def test_fuzz_output_paths_never_lose_a_file(entry, content, replace, fail_while_writing):
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        target = _place(entry, where, content)
        watched = [target, where / "real.txt", where / "file"]
        before = [_state(path) for path in watched]
        try:
            output = output_file(target, NOTES, replace=replace)
            with output.open() as handle:
                handle.write("note: new")
                if fail_while_writing:
                    raise OSError(28, "No space left on device")
        except AttndepthError:  # refused, or the disk failed: nothing changed
            assert [_state(path) for path in watched] == before
            assert not list(where.glob(".*partial"))
            return
        # written: only where the rules allow, and whole
        assert entry in ("missing", "empty", "own kind", "link to own kind", "dangling link") \
            or (replace and entry in ("foreign text", "binary"))
        assert Path(os.path.realpath(target)).read_text() == "note: new"


class _Escapes(BaseException):
    pass


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


BEHAVIOURS = st.one_of(
    st.sampled_from([ValueError, KeyError, RuntimeError, MemoryError, RecursionError,
                     ZeroDivisionError, _Escapes, _Unprintable, GeneratorExit,
                     StopIteration]).map(lambda cls: ("raise", cls)),
    st.integers(-3, 300).map(lambda code: ("exit", code)),
    st.sampled_from([float("nan"), float("inf"), -float("inf")]).map(lambda x: ("value", x)),
    st.one_of(st.none(), st.text(max_size=5), st.integers(), st.dictionaries(
        st.text(max_size=3), st.integers(), max_size=2)).map(lambda x: ("return", x)),
)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
          deadline=None)
@given(behaviour=BEHAVIOURS)
def test_fuzz_a_users_claim_cannot_take_the_run_down(monkeypatch, behaviour):
    kind, argument = behaviour

    def verify(seed):
        if kind == "raise":
            raise argument("from the claim")
        if kind == "exit":
            raise SystemExit(argument)
        if kind == "value":
            return Outcome("p", "m", "holds", values={"m": argument, "p": 1.0})
        return argument

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    mine = Claim("mine.fuzzed", "s", "s", "t", verify, {"quick": {}, "full": {}},
                 estimate=Estimate("m", "p", (-0.1, 0.1), seeds=(2, 2)))
    registry._REGISTRY["mine.fuzzed"] = mine
    [result] = pool_runs.run_claims(["mine.fuzzed"])
    assert result.verdict == "error" and "mine.fuzzed" in result.outcome.note \
        or kind == "return" and "not an Outcome" in result.outcome.note, result.outcome.note


GRID_TEXT = st.text(st.sampled_from("width=,.0123456789-+eEnaifNIé x_"), max_size=40)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(items=st.lists(GRID_TEXT, min_size=1, max_size=3))
def test_fuzz_map_grids_parse_or_say_why(items):
    try:
        grid = parse_grid(items)
    except AttndepthError as error:
        assert isinstance(error, ValueError) and "\n" not in str(error)
        return
    for values in grid.values():
        assert values and len(set(map(str, values))) == len(values)


_ROWS = list(atlas())[:20]
_CELLS = st.one_of(st.sampled_from(["", "nan", "-1", "inf", "1e400", "9" * 5000, "\x00",
                                    "[" * 2000, "null", "{}", "[[1,2]]", "é", "proved",
                                    "saturated", "0", "1", "2147483647", "[[0,1,2]]"]),
                   st.text(max_size=10))


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(row=st.integers(0, len(_ROWS) - 1),
       cells=st.lists(st.tuples(st.integers(0, len(ATLAS_COLUMNS) - 2), _CELLS), min_size=1,
                      max_size=3))
def test_fuzz_atlas_rows_load_or_say_which_line(row, cells):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "atlas.csv"
        write_atlas(Atlas(_ROWS), path)
        lines = path.read_text().splitlines()
        record = next(csv.reader([lines[row + 1]]))
        for column, cell in cells:
            record[column] = cell
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(record)
        lines[row + 1] = out.getvalue().rstrip("\n")
        path.write_text("\n".join(lines) + "\n")
        try:
            loaded = atlas(path)
        except AttndepthError as error:
            assert isinstance(error, ValueError) and "\n" not in str(error)
            return
        assert len(loaded) == len(_ROWS)


READERS = all_readers()


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(name=st.sampled_from(sorted(READERS)), data=st.data())
def test_fuzz_every_reader_reads_a_hostile_file_or_refuses_it_in_one_line(name, data):
    """Every format attndepth reads (enumerated from the registered readers), fed huge and
    deep values, bad bytes, wrong types and damaged containers, in a folder of any length:
    a document, or one ValueError naming the file — never another exception."""
    reader = READERS[name]
    content = data.draw(hostile(reader.syntax), label="content")
    # a folder of any length: a message cut to one line still names the file
    folders = data.draw(st.lists(st.sampled_from(["d", "d" * 60, "d" * 250]), max_size=3),
                        label="folders")
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, *folders) / "hostile.file"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        except OSError as error:  # the machine's fault, not a reader's: say which
            raise AssertionError(
                f"the test could not write its {len(content):,}-byte file in {scratch} "
                f"({error.strerror}; {shutil.disk_usage(scratch).free:,} bytes free there)"
            ) from None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a damaged checkpoint: a warning, then None
                reader.read(path)
        except AttndepthError as error:
            message = str(error)
            assert isinstance(error, ValueError), (name, message)
            assert "\n" not in message and "hostile.file" in message, (name, message)
            assert len(message) < 600, (name, message)


def test_the_readers_enumerated_are_every_format_attndepth_reads():
    assert set(READERS) >= {"a domain record", "a sweep spec", "an atlas",
                            "knee certificates", "a checkpoint"}
    assert {reader.syntax for reader in READERS.values()} == {"json", "toml", "csv", "npz"}


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(updater=st.sampled_from(sorted(HARNESS)), writers=st.integers(2, 8),
       updates=st.integers(1, 6))
def test_fuzz_concurrent_writers_lose_nothing(updater, writers, updates):
    """Writers in processes of their own, into one file through every read-modify-write
    attndepth has (enumerated from the code): every update is kept."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        started = [context.Process(target=_write_many,
                                   args=(updater, folder, updates * w, updates))
                   for w in range(writers)]
        for process in started:
            process.start()
        for process in started:
            process.join(120)
            assert process.exitcode == 0
        assert _kept(folder, updater) == set(range(writers * updates))


def test_the_kinds_used_above_are_the_toolkits():
    assert CSV_TABLE.recognises(b"a,b\n1,2\n") and PDF.recognises(b"%PDF-1.7")
