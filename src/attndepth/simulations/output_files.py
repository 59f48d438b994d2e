"""Every file attndepth writes goes through here: checked before the work, written whole.

The promise (the guide's reliability section): an output path never destroys
what it is given.

* **Checked at the door**, before any computation (:func:`output_file`): the
  path must lie in a directory (created if missing); an existing entry there is
  replaced only if it is a regular file that is empty, of the output's own
  :class:`OutputKind` (an earlier checkpoint of a measurement, an earlier
  export, an earlier figure), or the caller passed ``replace=True``
  (``--replace``). It is refused, whatever ``replace`` says, when it is a
  directory, not a regular file (a device such as ``/dev/null``, a pipe, a
  socket), a SQLite database (a sweep store: a store is never overwritten by
  an output), or the same file as an input the command reads. A symbolic link
  is followed: its target is what is checked and written; the link stays.
* **Written whole** (:meth:`OutputFile.open`): to a partial file beside the
  target (``.NAME.PID.TOKEN.partial``), flushed, synced and renamed over the
  target only when complete, after the checks above are made again. A process
  killed while writing leaves the previous file intact and a partial that the
  next write of the same output removes (once its process is gone and it is a
  minute old).
* **Read, changed and written under a lock** (:func:`locked_update`): a file that
  a command updates (a domain record, an output folder's manifest) is read and
  rewritten while its lock (``.NAME.lock`` beside it, :mod:`filelock`) is held, so
  concurrent writers queue and none loses another's change.
* **An output folder replaces only what attndepth wrote there**
  (:func:`output_folder`): a folder's manifest (:data:`MANIFEST_NAME`) holds the
  name and SHA-256 of every file attndepth wrote into it; an existing file is
  replaced only when the manifest lists it with its present bytes (a user's
  ``NAME.csv`` never is, nor a file changed since), and an entry that is a
  symbolic link is refused.
* **A failing disk stops the run, not the work**: any `OSError` while writing
  (a full disk, an I/O error, a file system turned read-only) is
  :class:`~attndepth.errors.OutputFailed` (``DiskFull`` for a full disk), CLI
  exit 3, and the target is left as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from attndepth.errors import DiskFull, InvalidParameter, InvalidType, OutputFailed

#: How many bytes of an existing file a kind sees to recognise its own.
HEAD_BYTES = 4096

#: A partial file this old whose process is gone on this host is an orphan (seconds).
ORPHAN_SECONDS = 60.0

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class OutputKind:
    """What an earlier output of one kind looks like.

    Attributes
    ----------
    description : the kind in words, for the refusal ("an attndepth checkpoint").
    recognises : ``head -> bool`` on the first :data:`HEAD_BYTES` bytes of an
        existing file: True when the file is an earlier output of this kind,
        which may be replaced.
    """

    description: str
    recognises: Callable[[bytes], bool]


def magic_kind(description: str, *prefixes: bytes) -> OutputKind:
    """A kind recognised by the bytes its files start with (``%PDF-``, a PNG's signature)."""
    return OutputKind(description, lambda head: head.startswith(prefixes))


def text_kind(description: str, *patterns: str) -> OutputKind:
    """A kind of UTF-8 text recognised by a regular expression matched at its start
    (``re.match`` on the decoded head; a head cut inside a character still decodes)."""
    compiled = [re.compile(pattern) for pattern in patterns]

    def recognises(head: bytes) -> bool:
        if b"\x00" in head:
            return False
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as error:
            if error.start < len(head) - 3:  # not merely a character cut at the end
                return False
            text = head[:error.start].decode("utf-8")
        return any(pattern.match(text) for pattern in compiled)

    return OutputKind(description, recognises)


PDF = magic_kind("a PDF file", b"%PDF-")
PNG = magic_kind("a PNG image", b"\x89PNG\r\n\x1a\n")


def _is_csv_table(head: bytes) -> bool:
    """A table as :mod:`csv` writes it: a header of non-empty names without surrounding
    blanks (one name alone must be an identifier), and a first row (if any) with as many
    fields."""
    import csv

    if b"\x00" in head:
        return False
    lines = head.decode("utf-8", errors="replace").splitlines()
    if not lines or (len(lines) == 1 and not head.endswith((b"\n", b"\r"))):
        return False
    try:
        rows = list(csv.reader(lines[:2]))
    except csv.Error:
        return False
    header = rows[0]
    if not header or any(not name or name != name.strip() for name in header):
        return False
    if len(header) == 1 and not header[0].isidentifier():  # one line of prose or code
        return False
    complete_row = len(rows) > 1 and (len(lines) > 2 or head.endswith((b"\n", b"\r")))
    return not complete_row or len(rows[1]) == len(header)


#: A CSV table as attndepth writes it (a figure's or a map's data, an export).
CSV_TABLE = OutputKind("a CSV table", _is_csv_table)


def _orphaned(partial: Path, name: str, min_age: float) -> bool:
    """Whether ``partial`` (``.NAME.PID[.TOKEN].partial``) belongs to a process gone from
    this host and is at least ``min_age`` seconds old."""
    middle = partial.name[len(name) + 2:-len(".partial")]
    pid = middle.split(".", 1)[0]
    if not pid.isdigit():
        return False
    try:
        if min_age and time.time() - partial.stat().st_mtime < min_age:
            return False
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # gone meanwhile, or a live process of another user
        return False
    return False


def remove_orphaned_partials(target: Path, min_age: float = ORPHAN_SECONDS) -> None:
    """Delete the partial files of ``target`` left by writers killed mid-write.

    Parameters
    ----------
    target : the output file.
    min_age : seconds a partial must have stood unchanged: a writer on another host
        sharing the directory has long finished by then. A caller that holds a lock
        on ``target`` (a checkpoint's writer) passes 0.
    """
    with contextlib.suppress(OSError):
        for partial in target.parent.glob(f".{glob_escape(target.name)}.*.partial"):
            if _orphaned(partial, target.name, min_age):
                partial.unlink(missing_ok=True)


def glob_escape(name: str) -> str:
    """``name`` with the glob specials ``*?[`` made literal."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(HEAD_BYTES)


@dataclass(frozen=True)
class OutputFile:
    """A checked output path (:func:`output_file`); write it with :meth:`open` or
    :meth:`write_text`.

    Attributes
    ----------
    path : the file as given.
    target : where the bytes go (``path`` with symbolic links followed).
    kind : what an earlier output there looks like.
    replace : whether an existing regular file of another kind may be replaced.
    reading : the inputs of the command (never written).
    """

    path: Path
    target: Path
    kind: OutputKind
    replace: bool = False
    reading: tuple[Path, ...] = field(default=())
    hint: str = ""

    def check(self) -> None:
        """Refuse the path unless it may be written (module docstring); create its
        directory. Raises InvalidParameter."""
        where = self.target.parent
        try:
            where.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise InvalidParameter(f"cannot write {self.path}: {where} is not a "
                                   f"directory") from None
        except OSError as error:
            raise InvalidParameter(f"cannot write {self.path}: cannot create the directory "
                                   f"{where} ({error.strerror or error})") from None
        if not os.access(where, os.W_OK | os.X_OK):
            raise InvalidParameter(f"cannot write {self.path}: the directory {where} is not "
                                   f"writable")
        for source in self.reading:  # an input, whether or not it exists yet
            with contextlib.suppress(OSError, RuntimeError):
                if source.resolve() == self.target:
                    raise InvalidParameter(f"{self.path} is an input of this command "
                                           f"({source}): choose another path; it was left "
                                           f"untouched")
        try:
            status = os.stat(self.target)
        except FileNotFoundError:
            return
        except OSError as error:
            raise InvalidParameter(f"cannot write {self.path}: {error.strerror or error}") \
                from None
        refusal = self._refusal(status)
        if refusal:
            raise InvalidParameter(f"{self.path} {refusal}; it was left untouched")

    def _refusal(self, status: os.stat_result) -> str:
        """Why the existing entry at the target may not be replaced ('' when it may)."""
        if stat.S_ISDIR(status.st_mode):
            return "is a directory, not a file"
        if not stat.S_ISREG(status.st_mode):
            return "is not a regular file (a device, a pipe or a socket)"
        for source in self.reading:
            with contextlib.suppress(OSError):
                if os.path.samefile(source, self.target):
                    return f"is an input of this command ({source}): choose another path"
        if status.st_size == 0:
            return ""
        try:
            head = _head(self.target)
        except OSError as error:
            return f"cannot be read ({error.strerror or error})"
        if head.startswith(SQLITE_MAGIC) and not self.kind.recognises(head):
            return ("is a SQLite database (a sweep store?), which an output never "
                    "replaces: choose another path")
        if self.replace or self.kind.recognises(head):
            return ""
        how = self.hint or "choose another path or delete it"
        return f"exists and is not {self.kind.description}: {how}"

    @contextlib.contextmanager
    def open(self, mode: str = "w", **options: Any) -> Iterator[IO[Any]]:
        """A handle on a partial file beside the target, renamed over it when the block
        ends without an exception (checked again just before).

        Parameters
        ----------
        mode : ``"w"`` (text, UTF-8 unless ``encoding`` is given) or ``"wb"``.
        options : passed to :func:`open` (``newline``, ``encoding``).

        Raises
        ------
        InvalidParameter
            The target changed since it was checked into something not to replace.
        OutputFailed, DiskFull
            An ``OSError`` while writing; the target is left as it was.
        """
        if mode not in ("w", "wb"):
            raise InvalidParameter(f"mode must be 'w' or 'wb', got {mode!r}")
        if mode == "w":
            options.setdefault("encoding", "utf-8")
        self.check()
        remove_orphaned_partials(self.target)
        partial = self.target.with_name(
            f".{self.target.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
        try:
            try:
                with open(partial, "x" + mode[1:], **options) as handle:
                    yield handle
                    handle.flush()
                    os.fsync(handle.fileno())
                self.check()
                _keep_mode(self.target, partial)
                os.replace(partial, self.target)
            except OSError as error:
                raise output_failed(self.path, error) from error
        finally:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)

    def write_text(self, text: str) -> None:
        """Write ``text`` (UTF-8) whole (:meth:`open`)."""
        with self.open("w") as handle:
            handle.write(text)

    def write_bytes(self, data: bytes) -> None:
        """Write ``data`` whole (:meth:`open`)."""
        with self.open("wb") as handle:
            handle.write(data)


def _keep_mode(target: Path, partial: Path) -> None:
    """Give the partial the permissions the target has, or the umask's for a new file."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(partial, mode)


def output_failed(path: Path | str, error: OSError) -> OutputFailed:
    """The error for an ``OSError`` while writing ``path``: DiskFull when the disk is full."""
    reason = error.strerror or str(error) or type(error).__name__
    cls = DiskFull if error.errno in (errno.ENOSPC, errno.EDQUOT) else OutputFailed
    return cls(f"could not write {path} ({reason}); the file was left as it was")


def output_file(path: str | os.PathLike[str], kind: OutputKind, *, replace: bool = False,
                reading: Iterable[str | os.PathLike[str] | None] = (),
                hint: str = "") -> OutputFile:
    """Check ``path`` as an output of ``kind`` now, before the work (module docstring).

    Parameters
    ----------
    path : the file to write.
    kind : what an earlier output there looks like (it may be replaced).
    replace : replace an existing regular file of another kind too (``--replace``);
        never a store, an input, a directory or a device.
    reading : the inputs of the command (None entries are skipped).
    hint : how the user may replace a file of another kind (the CLI names its option).

    Returns
    -------
    OutputFile

    Raises
    ------
    InvalidType
        ``path`` is not a str or path.
    InvalidParameter
        The path may not be written (the message says why and that it was left untouched).
    """
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InvalidType(f"an output path must be a str or Path, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text or "\x00" in text:
        raise InvalidParameter(f"an output path must be a non-empty file name, got {text!r}")
    given = Path(text)
    try:
        target = given.resolve()
    except (OSError, RuntimeError) as error:  # a loop of links
        raise InvalidParameter(f"cannot write {given}: {error}") from None
    inputs = tuple(Path(os.fspath(p)) for p in reading if p is not None)
    output = OutputFile(given, target, kind, bool(replace), inputs, hint)
    output.check()
    return output


#: How long a writer waits for another's lock on a file it updates (seconds).
LOCK_SECONDS = 120.0


def lock_path(target: Path) -> Path:
    """The lock of ``target`` (a resolved path): ``.NAME.lock`` beside it."""
    return target.with_name(f".{target.name}.lock")


@contextlib.contextmanager
def locked_update(path: str | os.PathLike[str], kind: OutputKind, *,
                  seconds: float = LOCK_SECONDS) -> Iterator[OutputFile]:
    """Hold the lock of the file at ``path`` while the caller reads, changes and writes it
    (a read-modify-write: a domain record, a folder's manifest).

    Concurrent writers of one file, in threads or processes of this host (or of hosts
    sharing a file system with working ``flock``), queue on the lock: each reads the
    file as the one before left it, so none loses another's change. The lock is
    :mod:`filelock`'s on ``.NAME.lock`` beside the file (links followed: two paths
    to one file share one lock); the lock file stays, empty, when the update ends.

    Parameters
    ----------
    path : the file (checked as an output of ``kind``, :func:`output_file`).
    kind : what an earlier file there looks like.
    seconds : how long to wait for another writer.

    Yields
    ------
    OutputFile
        The checked output; read ``output.target`` and write with ``output.open``.

    Raises
    ------
    InvalidParameter
        The path may not be written, or another writer held the lock for ``seconds``.
    """
    from filelock import FileLock, Timeout

    output = output_file(path, kind)
    lock = FileLock(lock_path(output.target), timeout=seconds)
    try:
        lock.acquire()
    except Timeout:
        raise InvalidParameter(f"{output.path} is being updated by another process (its "
                               f"lock {lock.lock_file} was held for {seconds:g} s); try "
                               f"again when it has finished") from None
    except OSError as error:
        raise InvalidParameter(f"cannot lock {output.path} for an update "
                               f"({error.strerror or error})") from None
    try:
        yield output
    finally:
        lock.release()


# ---------------------------------------------------------------------------------------
# Output folders: a manifest of what attndepth wrote there.

#: The manifest of an output folder: the files attndepth wrote there, with their SHA-256.
MANIFEST_NAME = ".attndepth-outputs.json"
MANIFEST_KEY = "attndepth_outputs"
MANIFEST_KIND = text_kind("an attndepth output manifest", r'\{\s*"' + MANIFEST_KEY + '"')


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(folder: Path) -> dict[str, str]:
    """The files attndepth wrote into ``folder``: name -> SHA-256 (empty when there is
    no manifest, or when it cannot be read as one: then no file there is replaced)."""
    from attndepth.input_files import Schema, obj, read_json

    path = folder / MANIFEST_NAME
    if not path.is_file():
        return {}
    schema = obj({MANIFEST_KEY: Schema("integer", choices=(1,)),
                  "files": obj(extra=Schema("string"))}, required=(MANIFEST_KEY, "files"))
    try:
        document = read_json(path, "output manifest", schema, max_bytes=16 * 2**20)
    except InvalidParameter:
        return {}
    return dict(document["files"])


def _record_written(folder: Path, name: str, digest: str) -> None:
    """Add ``name`` (written with ``digest``) to ``folder``'s manifest, under its lock."""
    import json

    with locked_update(folder / MANIFEST_NAME, MANIFEST_KIND) as manifest:
        files = read_manifest(folder)
        files[name] = digest
        manifest.write_text(json.dumps({MANIFEST_KEY: 1, "files": dict(sorted(files.items()))},
                                       indent=1) + "\n")


@dataclass(frozen=True)
class FolderFile(OutputFile):
    """A file of an output folder (:func:`output_folder`): replaces only a file the
    folder's manifest lists with its present bytes, never through a link."""

    folder: Path = Path()

    def _refusal(self, status: os.stat_result) -> str:
        refusal = super()._refusal(status)
        if refusal or status.st_size == 0:
            return refusal
        written = read_manifest(self.folder).get(self.target.name)
        try:
            present = _sha256(self.target)
        except OSError as error:
            return f"cannot be read ({error.strerror or error})"
        if written != present:
            return (f"was not written by attndepth{' as it is now' if written else ''} "
                    f"(it is not in {self.folder / MANIFEST_NAME} with these bytes): "
                    f"move it or choose another folder")
        return ""

    def check(self) -> None:
        """The checks of :meth:`OutputFile.check`, and no symbolic link at the entry."""
        if os.path.islink(self.path):
            raise InvalidParameter(f"{self.path} is a symbolic link, which an output folder "
                                   f"never writes through; it was left untouched")
        super().check()

    @contextlib.contextmanager
    def open(self, mode: str = "w", **options: Any) -> Iterator[IO[Any]]:
        """:meth:`OutputFile.open`, then the file's name and SHA-256 in the manifest."""
        with super().open(mode, **options) as handle:
            yield handle
        try:
            _record_written(self.folder, self.target.name, _sha256(self.target))
        except OSError as error:
            raise output_failed(self.folder / MANIFEST_NAME, error) from error


@dataclass(frozen=True)
class OutputFolder:
    """A folder attndepth writes several files into (``figures --out``, ``map --out``);
    make each with :meth:`file`."""

    path: Path

    def file(self, name: str, kind: OutputKind) -> FolderFile:
        """The file ``name`` of the folder, checked now (:class:`FolderFile`).

        Raises
        ------
        InvalidParameter
            ``name`` is not a plain file name, the entry is a link, or a file there was
            not written by attndepth (or changed since).
        """
        if not isinstance(name, str) or not name or name in (".", "..") or "/" in name \
                or "\x00" in name or name == MANIFEST_NAME:
            raise InvalidParameter(f"an output folder's file must be a plain file name, got "
                                   f"{name!r}")
        given = self.path / name
        output = FolderFile(given, self.path.resolve() / name, kind, folder=self.path.resolve())
        output.check()
        return output


def output_folder(path: str | os.PathLike[str]) -> OutputFolder:
    """An output folder (created when its first file is written): its files replace only
    what attndepth wrote there (module docstring).

    Raises
    ------
    InvalidType
        ``path`` is not a str or path.
    InvalidParameter
        ``path`` exists and is not a directory.
    """
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InvalidType(f"an output folder must be a str or Path, got {type(path).__name__}")
    folder = Path(os.fspath(path))
    if not os.fspath(folder) or "\x00" in os.fspath(folder):
        raise InvalidParameter(f"an output folder must be a non-empty path, got {path!r}")
    if folder.exists() and not folder.is_dir():
        raise InvalidParameter(f"cannot write into {folder}: it is not a directory")
    return OutputFolder(folder)
