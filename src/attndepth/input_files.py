"""Every file attndepth reads is parsed and checked here, before any work.

A reader of one format (a domain record, a sweep spec, a checkpoint's state, a folder's
manifest, a ``--member`` object) registers itself with :func:`reader`, and calls
:func:`read_json` or :func:`read_toml` (or :func:`parse_json` on text it was given) with
a :class:`Schema`. Whatever a file holds, the reader returns a checked document or
raises one :class:`~attndepth.errors.InvalidParameter` (a ``ValueError``; CLI exit 2)
whose one-line message names the file, the place in it and what was expected:

* **bytes**: at most ``max_bytes`` (read no further); UTF-8, or the offset of the
  first bad byte is named;
* **syntax**: JSON or TOML as the standard library parses it, nesting included (a
  file nested deeper than the parser recurses is refused, not a ``RecursionError``);
* **values**: nesting at most :data:`MAX_DEPTH` deep, at most :data:`MAX_ITEMS`
  items in a container, integers of at most :data:`MAX_DIGITS` digits, finite
  floats (JSON's ``NaN`` and ``Infinity``, and ``1e400``, are refused), strings of at
  most :data:`MAX_STRING` characters;
* **schema**: the types, ranges and keys the format declares (:class:`Schema`).

Like :mod:`attndepth.errors` and :mod:`attndepth.validation`, this module imports no
layer of attndepth, so that each layer's readers may use it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from attndepth.errors import InvalidParameter, shown, shown_path

#: Deepest nesting of objects and lists any attndepth file needs (a domain record: 6).
MAX_DEPTH = 32
#: Digits of the longest integer any attndepth file holds (a seed < 2**64 has 20).
MAX_DIGITS = 40
#: Items in one object or list (a map's points, a record's failures).
MAX_ITEMS = 1_000_000
#: Characters of one string (a command line, a note).
MAX_STRING = 100_000
#: Bytes of a file read by default.
MAX_BYTES = 64 * 2**20

Read = TypeVar("Read", bound=Callable[..., Any])

#: What the files of a format are made of: JSON, TOML, CSV (with JSON cells), NumPy's
#: ``.npz`` (a checkpoint: arrays and a JSON state).
SYNTAXES = ("json", "toml", "csv", "npz")

#: Every registered reader: name -> :class:`Reader` (filled by :func:`reader`).
READERS: dict[str, Reader] = {}


@dataclass(frozen=True)
class Reader:
    """A format attndepth reads.

    Attributes
    ----------
    name : the format in words ("a domain record").
    syntax : :data:`SYNTAXES`: what a hostile file of this format is made of.
    read : ``path -> document``; raises InvalidParameter on anything but a valid file.
    """

    name: str
    syntax: str
    read: Callable[[Path], Any]


def reader(name: str, syntax: str) -> Callable[[Read], Read]:
    """Register ``read(path)`` as the reader of format ``name`` (the reliability tests
    draw hostile files of ``syntax`` for every registered reader)."""
    if syntax not in SYNTAXES:
        raise InvalidParameter(f"a reader's syntax must be one of {', '.join(SYNTAXES)}, got "
                               f"{shown(syntax)}")

    def register(read: Read) -> Read:
        READERS[name] = Reader(name, syntax, read)
        return read

    return register


def _refuse(source: str, why: str) -> InvalidParameter:
    return InvalidParameter(f"{source}: {why}")


def describe_path(what: str, path: str | os.PathLike[str]) -> str:
    """``"a domain record /x/y.json"``, the path shortened for one line."""
    return f"{what} {shown_path(path)}"


def read_bytes(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of ``path`` (at most ``max_bytes``), or one error naming ``what``."""
    source = describe_path(what, path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise _refuse(source, "is a directory, not a file") from None
    except OSError as error:
        raise _refuse(source, f"cannot be read ({error.strerror or error})") from None
    if len(data) > max_bytes:
        raise _refuse(source, f"is larger than {max_bytes:,} bytes")
    return data


def decode(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text, or an error naming the offset of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _refuse(source, f"is not UTF-8 text (byte {error.start}: "
                              f"{data[error.start:error.start + 1]!r})") from None


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Bad(f"an integer of {len(text.lstrip('-')):,} digits (at most {MAX_DIGITS})",
                   text)
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Bad(f"the number {shown(text, 40, quote=False)} is beyond float64's range",
                   text)
    return value


def _json_constant(text: str) -> float:
    raise _Bad(f"{text} is not a number attndepth reads", text)


class _Bad(Exception):
    """A value refused while parsing (carried out of the parser's hooks): its message,
    then the token refused."""

    def __str__(self) -> str:
        return str(self.args[0])


def _located(text: str, error: _Bad, tokens: tuple[str, ...]) -> str:
    """``error``'s message with the line and column of the first of ``tokens`` found."""
    for token in tokens:
        offset = text.find(token)
        if offset >= 0:
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            return f"{error} at line {line}, column {column}"
    return str(error)


def parse_json(text: str, source: str) -> Any:
    """``text`` as JSON, every value checked (module docstring); ``source`` names it in
    the error (``"--member"``, ``"a domain record FILE"``)."""
    try:
        document = json.loads(text, parse_int=_json_int, parse_float=_json_float,
                              parse_constant=_json_constant)
    except _Bad as error:
        raise _refuse(source, _located(text, error, error.args[1:])) from None
    except RecursionError:
        raise _refuse(source, f"is nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        raise _refuse(source, f"is not JSON ({error.msg} at line {error.lineno}, column "
                              f"{error.colno})") from None
    except ValueError as error:  # a number beyond what int() or float() reads
        why = shown(str(error), 80, quote=False)
        raise _refuse(source, f"is not JSON attndepth reads ({why})") from None
    check_values(document, source)
    return document


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` as TOML, every value checked (module docstring)."""
    import tomllib

    try:
        document = tomllib.loads(text, parse_float=_json_float)
    except _Bad as error:
        raise _refuse(source, _located(text, error, error.args[1:])) from None
    except RecursionError:
        raise _refuse(source, f"is nested deeper than {MAX_DEPTH} levels") from None
    except tomllib.TOMLDecodeError as error:
        raise _refuse(source, f"is not TOML ({shown(str(error), 120, quote=False)})") \
            from None
    except ValueError:  # an integer beyond int()'s digit limit (4,300 digits)
        raise _refuse(source, f"holds an integer of thousands of digits (at most "
                              f"{MAX_DIGITS})") from None
    check_values(document, source)
    return document


def read_json(path: str | os.PathLike[str], what: str, schema: Schema | None = None,
              max_bytes: int = MAX_BYTES) -> Any:
    """The JSON document in ``path``, parsed, its values and ``schema`` checked."""
    source = describe_path(what, path)
    document = parse_json(decode(read_bytes(path, what, max_bytes), source), source)
    if schema is not None:
        schema.check(document, source)
    return document


def read_toml(path: str | os.PathLike[str], what: str, schema: Schema | None = None,
              max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """The TOML document in ``path``, parsed, its values and ``schema`` checked."""
    source = describe_path(what, path)
    document = parse_toml(decode(read_bytes(path, what, max_bytes), source), source)
    if schema is not None:
        schema.check(document, source)
    return document


def check_values(document: Any, source: str) -> None:
    """Refuse a document nested too deep, too large, or holding a value no attndepth
    file holds (an over-long integer or string, a non-finite float, a date)."""
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    while stack:
        value, place, depth = stack.pop()
        where = f" at {place}" if place else ""
        if depth > MAX_DEPTH:
            raise _refuse(source, f"is nested deeper than {MAX_DEPTH} levels{where}")
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            why = _scalar_refusal(value)
            if why:
                raise _refuse(source, f"{why}{where}")
            continue
        if len(value) > MAX_ITEMS:
            raise _refuse(source, f"holds more than {MAX_ITEMS:,} items{where}")
        for key, item in items:
            if isinstance(key, str) and len(key) > MAX_STRING:
                raise _refuse(source, f"has a key of {len(key):,} characters{where}")
            stack.append((item, f"{place}{_step(key)}", depth + 1))


def _step(key: object) -> str:
    return f"[{key}]" if isinstance(key, int) else f".{shown(str(key), 40, quote=False)}"


def _scalar_refusal(value: object) -> str:
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, int):
        digits = len(str(abs(value))) if abs(value) < 10**(MAX_DIGITS + 1) else MAX_DIGITS + 1
        return (f"an integer of more than {MAX_DIGITS} digits" if digits > MAX_DIGITS
                else "")
    if isinstance(value, float):
        return "" if math.isfinite(value) else f"a non-finite number ({value})"
    if isinstance(value, str):
        return (f"a string of {len(value):,} characters (at most {MAX_STRING:,})"
                if len(value) > MAX_STRING else "")
    return f"a value of type {type(value).__name__}, which attndepth does not read"


# ---------------------------------------------------------------------------------------
# Schemas: the types, ranges and keys of a format.


def _kind(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class Schema:
    """What one value of a format must be.

    Attributes
    ----------
    kind : ``"object"``, ``"list"``, ``"string"``, ``"integer"``, ``"number"``,
        ``"boolean"``, ``"null"`` or ``"any"``; a tuple of kinds for a choice.
    fields : for an object: key -> schema of the keys it may have.
    required : for an object: the keys it must have.
    extra : for an object: the schema of keys not in ``fields`` (None: such keys are
        refused).
    items : for a list: the schema of each item.
    choices : the values allowed (strings or numbers), if restricted.
    minimum, maximum : the range of a number.
    """

    kind: str | tuple[str, ...]
    fields: Mapping[str, Schema] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    extra: Schema | None = None
    items: Schema | None = None
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: Any, source: str, place: str = "") -> None:
        """Refuse ``value`` unless it matches; the message names ``source`` and the place
        (``.claims.x.failures[0].seed``)."""
        kinds = (self.kind,) if isinstance(self.kind, str) else self.kind
        where = f" at {place}" if place else ""
        if not any(_matches(kind, value) for kind in kinds):
            wanted = " or ".join(_KIND_WORDS[kind] for kind in kinds)
            raise _refuse(source, f"expected {wanted}{where}, found {_kind(value)}")
        if self.choices and value not in self.choices:
            allowed = ", ".join(repr(choice) for choice in self.choices)
            raise _refuse(source, f"expected one of {allowed}{where}, found "
                                  f"{shown(value, 40)}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if (self.minimum is not None and value < self.minimum) or (
                    self.maximum is not None and value > self.maximum):
                bounds = (f"from {self.minimum:g} to {self.maximum:g}"
                          if self.minimum is not None and self.maximum is not None
                          else f">= {self.minimum:g}" if self.minimum is not None
                          else f"<= {self.maximum:g}")
                raise _refuse(source, f"expected a number {bounds}{where}, found "
                                      f"{shown(value, 40)}")
        if isinstance(value, dict) and "object" in kinds:
            for key, item in value.items():
                schema = self.fields.get(key, self.extra)
                if schema is None:
                    known = ", ".join(self.fields) or "none"
                    raise _refuse(source, f"unexpected key {shown(key, 40)}{where} "
                                          f"(known: {known})")
                schema.check(item, source, f"{place}{_step(key)}")
            for key in self.required:
                if key not in value:
                    raise _refuse(source, f"expected the key {key!r}{where}")
        if isinstance(value, list) and self.items is not None:
            for index, item in enumerate(value):
                self.items.check(item, source, f"{place}[{index}]")


_KIND_WORDS = {"object": "an object", "list": "a list", "string": "a string",
               "integer": "an integer", "number": "a number", "boolean": "a boolean",
               "null": "null", "any": "a value"}


def _matches(kind: str, value: object) -> bool:
    if kind == "any":
        return True
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    types = {"object": dict, "list": list, "string": str, "boolean": bool,
             "null": type(None)}
    if kind not in types:
        raise InvalidParameter(f"unknown schema kind {kind!r}")
    return isinstance(value, types[kind])


def obj(fields: Mapping[str, Schema] | None = None, *, required: tuple[str, ...] = (),
        extra: Schema | None = None) -> Schema:
    """An object with ``fields`` (``required`` among them)."""
    return Schema("object", dict(fields or {}), required, extra)


def list_of(items: Schema) -> Schema:
    """A list whose every item matches ``items``."""
    return Schema("list", items=items)


ANY = Schema("any")
STRING = Schema("string")
INTEGER = Schema("integer")
NUMBER = Schema("number")
BOOLEAN = Schema("boolean")
SEED = Schema("integer", minimum=0, maximum=2**64 - 1)
