"""Output paths: checked before the work, written whole, never destroying what is there."""

import errno
import os
import sqlite3
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.errors import DiskFull, InvalidParameter, InvalidType, OutputFailed
from attndepth.simulations.output_files import (
    CSV_TABLE,
    ORPHAN_SECONDS,
    PDF,
    output_file,
    remove_orphaned_partials,
    text_kind,
)

NOTES = text_kind("a note", r"note:")


def _sqlite(path):
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x)")
        connection.execute("INSERT INTO t VALUES (1)")
    connection.close()


def test_a_new_file_is_written_whole_with_the_umask_permissions(tmp_path):
    target = tmp_path / "deep" / "er" / "out.txt"
    output_file(target, NOTES).write_text("note: one")
    assert target.read_text() == "note: one"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert not list(target.parent.glob(".*partial"))


def test_an_earlier_output_of_its_kind_is_replaced_keeping_its_mode(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("note: old")
    target.chmod(0o640)
    output_file(target, NOTES).write_text("note: new")
    assert target.read_text() == "note: new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_an_empty_file_is_replaced(tmp_path):
    target = tmp_path / "out.txt"
    target.touch()
    output_file(target, NOTES).write_text("note: x")
    assert target.read_text() == "note: x"


def test_a_file_of_another_kind_needs_replace(tmp_path):
    target = tmp_path / "mine.py"
    target.write_text("print('my work')\n")
    with pytest.raises(InvalidParameter, match="is not a note.*--replace.*left untouched"):
        output_file(target, NOTES, hint="give --replace")
    assert target.read_text() == "print('my work')\n"
    output_file(target, NOTES, replace=True).write_text("note: x")
    assert target.read_text() == "note: x"


def test_a_database_the_input_a_directory_and_a_pipe_are_never_replaced(tmp_path):
    store = tmp_path / "store.sqlite"
    _sqlite(store)
    before = store.read_bytes()
    with pytest.raises(InvalidParameter, match="SQLite database"):
        output_file(store, CSV_TABLE, replace=True)
    source = tmp_path / "input.csv"
    source.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidParameter, match="is an input"):
        output_file(source, CSV_TABLE, replace=True, reading=[source])
    with pytest.raises(InvalidParameter, match="is an input"):  # even before it exists
        output_file(tmp_path / "later.csv", CSV_TABLE, reading=[tmp_path / "later.csv"])
    with pytest.raises(InvalidParameter, match="directory"):
        output_file(tmp_path, CSV_TABLE, replace=True)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InvalidParameter, match="not a regular file"):
        output_file(fifo, CSV_TABLE, replace=True)
    assert store.read_bytes() == before and source.read_text() == "a,b\n1,2\n"
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_link_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("note: old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    output_file(link, NOTES).write_text("note: new")
    assert link.is_symlink() and real.read_text() == "note: new"
    device = tmp_path / "null"
    device.symlink_to(os.devnull)
    with pytest.raises(InvalidParameter, match="not a regular file"):
        output_file(device, NOTES, replace=True)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InvalidParameter):
        output_file(loop, NOTES)


def test_a_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidParameter, match="not a directory"):
        output_file(tmp_path / "file" / "out.csv", CSV_TABLE)


@pytest.mark.parametrize("bad", [3, None, b"out", True])
def test_a_path_of_the_wrong_type_is_refused(bad):
    with pytest.raises(InvalidType):
        output_file(bad, NOTES)


@pytest.mark.parametrize("bad", ["", "a\x00b"])
def test_an_empty_or_nul_path_is_refused(bad):
    with pytest.raises(InvalidParameter):
        output_file(bad, NOTES)


def test_an_error_while_writing_leaves_the_old_file_and_no_partial(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("note: old")
    output = output_file(target, NOTES)
    with pytest.raises(ZeroDivisionError), output.open() as handle:
        handle.write("note: half")
        raise ZeroDivisionError
    assert target.read_text() == "note: old"
    assert not list(tmp_path.glob(".*partial"))


@pytest.mark.parametrize("code, error", [(errno.ENOSPC, DiskFull), (errno.EIO, OutputFailed),
                                         (errno.EROFS, OutputFailed)])
def test_a_failing_disk_is_output_failed_and_the_old_file_stays(tmp_path, code, error):
    target = tmp_path / "figure.pdf"
    target.write_bytes(b"%PDF-1.4 old")
    output = output_file(target, PDF)

    with pytest.raises(error, match="left as it was") as raised, output.open("wb") as handle:
        handle.write(b"%PDF-1.4 new")
        raise OSError(code, os.strerror(code))
    assert isinstance(raised.value, OSError)
    assert target.read_bytes() == b"%PDF-1.4 old"
    assert not list(tmp_path.glob(".*partial"))


def test_what_appears_after_the_check_is_refused_at_the_rename(tmp_path):
    target = tmp_path / "out.csv"
    output = output_file(target, CSV_TABLE)
    _sqlite(target)  # another program creates a database there meanwhile
    before = target.read_bytes()
    with pytest.raises(InvalidParameter, match="SQLite"):
        output.write_text("a,b\n")
    assert target.read_bytes() == before


def test_orphaned_partials_are_removed_and_live_ones_kept(tmp_path):
    target = tmp_path / "out.csv"
    dead = tmp_path / ".out.csv.99999999.abcd.partial"
    young = tmp_path / ".out.csv.99999998.abcd.partial"
    live = tmp_path / f".out.csv.{os.getpid()}.abcd.partial"
    other = tmp_path / ".other.csv.99999999.abcd.partial"
    for path in (dead, young, live, other):
        path.write_text("half")
    old = os.stat(dead).st_mtime - 2 * ORPHAN_SECONDS
    for path in (dead, live, other):
        os.utime(path, (old, old))
    remove_orphaned_partials(target)
    assert not dead.exists() and young.exists() and live.exists() and other.exists()
    remove_orphaned_partials(target, min_age=0)
    assert not young.exists() and live.exists()


@settings(max_examples=60, deadline=None)
@given(content=st.binary(max_size=64) | st.just(b"SQLite format 3\x00"),
       kind_matches=st.booleans(), replace=st.booleans())
def test_an_existing_file_is_replaced_only_when_the_rules_allow(tmp_path_factory, content,
                                                                kind_matches, replace):
    target = tmp_path_factory.mktemp("out") / "out.txt"
    data = (b"note:" if kind_matches else b"") + content
    target.write_bytes(data)
    # the kind's own test decides what is a note; the rules around it are checked here
    allowed = (not data or replace or NOTES.recognises(data)) \
        and not data.startswith(b"SQLite format 3\x00")
    try:
        output_file(target, NOTES, replace=replace).write_text("note: new")
    except InvalidParameter:
        assert not allowed
        assert target.read_bytes() == data
    else:
        assert allowed
        assert target.read_text() == "note: new"


# ---------------------------------------------------------------------------------------
# Read-modify-write under a lock: every updater, enumerated from the code.


def _updaters() -> set[str]:
    """The functions of attndepth that update a file under :func:`locked_update`."""
    import ast
    from pathlib import Path

    import attndepth

    found = set()
    for path in Path(attndepth.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == \
                        "locked_update" and function.name != "locked_update":
                    found.add(f"{path.stem}.{function.name}")
    return found


def _record_member(folder, k):
    from attndepth.framework.domain import KnownFailure, record_member

    failure = KnownFailure.now("mine.x", {"k": k}, "fails", "m", 0, "c", "member")
    record_member(folder / "record.json", "mine.x", {"k": k}, failure)


def _record_run(folder, k):
    from attndepth.framework.domain import record_search

    record_search(folder / "record.json", f"mine.{k}", [], {"members": k})


def _record_written(folder, k):
    from attndepth.simulations.output_files import output_folder

    output_folder(folder / "out").file(f"f{k}.csv", CSV_TABLE).write_text("a,b\n1,2\n")


def _kept(folder, updater):
    from attndepth.framework.domain import read_record
    from attndepth.simulations.output_files import read_manifest

    if updater == "domain.record_member":
        return {f["member"]["k"] for f in read_record(folder / "record.json")["mine.x"]
                ["failures"]}
    if updater == "domain._record_run":
        return {int(c.split(".")[1]) for c in read_record(folder / "record.json")}
    return {int(name[1:-4]) for name in read_manifest(folder / "out")}


#: How each updater is driven by concurrent writers (a new updater needs an entry).
HARNESS = {"domain.record_member": _record_member, "domain._record_run": _record_run,
           "output_files._record_written": _record_written}


def _write_many(updater, folder, first, count):
    for k in range(first, first + count):
        HARNESS[updater](folder, k)


def test_every_read_modify_write_of_attndepth_has_a_concurrency_test():
    assert _updaters() == set(HARNESS)


@pytest.mark.parametrize("updater", sorted(HARNESS))
def test_concurrent_writers_lose_nothing(updater, tmp_path):
    """Eight processes, ten updates each, into one file: all eighty are kept."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_write_many, args=(updater, tmp_path, 10 * w, 10))
               for w in range(8)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
        assert writer.exitcode == 0
    assert _kept(tmp_path, updater) == set(range(80))


def test_a_lock_held_too_long_is_one_clear_error(tmp_path):
    from filelock import FileLock

    from attndepth.simulations.output_files import lock_path, locked_update

    target = tmp_path / "note.txt"
    with FileLock(lock_path(target.resolve())), pytest.raises(
            InvalidParameter, match="being updated by another process"), \
            locked_update(target, CSV_TABLE, seconds=0.2):
        pass


# ---------------------------------------------------------------------------------------
# Output folders: only what attndepth wrote there is replaced.


def test_a_folder_replaces_only_its_own_unchanged_files(tmp_path):
    from attndepth.simulations.output_files import MANIFEST_NAME, output_folder

    folder = output_folder(tmp_path / "out")
    folder.file("a.csv", CSV_TABLE).write_text("a,b\n1,2\n")
    folder.file("a.csv", CSV_TABLE).write_text("a,b\n3,4\n")  # its own: replaced
    (tmp_path / "out" / "mine.csv").write_text("x,y\n5,6\n")
    with pytest.raises(InvalidParameter, match="was not written by attndepth"):
        folder.file("mine.csv", CSV_TABLE)
    (tmp_path / "out" / "a.csv").write_text("a,b\n7,8\n")  # changed by the user since
    with pytest.raises(InvalidParameter, match="not written by attndepth as it is now"):
        folder.file("a.csv", CSV_TABLE)
    outside = tmp_path / "outside.csv"
    outside.write_text("x,y\n1,1\n")
    (tmp_path / "out" / "b.csv").symlink_to(outside)
    with pytest.raises(InvalidParameter, match="symbolic link"):
        folder.file("b.csv", CSV_TABLE)
    assert outside.read_text() == "x,y\n1,1\n"
    for bad in ("", "..", "x/y", MANIFEST_NAME):
        with pytest.raises(InvalidParameter, match="plain file name"):
            folder.file(bad, CSV_TABLE)
    (tmp_path / "out" / MANIFEST_NAME).write_text("{damaged")  # then nothing is replaced
    with pytest.raises(InvalidParameter, match="was not written by attndepth"):
        folder.file("a.csv", CSV_TABLE)
