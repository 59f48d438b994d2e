"""Hostile files of every syntax attndepth reads (:data:`attndepth.input_files.SYNTAXES`):
huge and deep values, bad bytes, wrong types, damaged containers — for the property
tests of every registered reader (:func:`all_readers`)."""

import csv
import importlib
import io
import json
import pkgutil
import zipfile

import numpy as np
from hypothesis import strategies as st

import attndepth
from attndepth.input_files import READERS, SYNTAXES, Reader


def all_readers() -> dict[str, Reader]:
    """Every reader attndepth registers: each of its modules imported (those of a missing
    extra skipped), then :data:`attndepth.input_files.READERS`."""
    for info in pkgutil.walk_packages(attndepth.__path__, prefix="attndepth."):
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
    return dict(READERS)


#: Byte strings no reader may choke on.
RAW = [b"", b"\x00", b"\xff\xfe", b"\xef\xbb\xbf{}", b"{" * 100_000, b"[" * 200_000,
       b"x = " + b"[" * 100_000, b"9" * 5000, b"x = " + b"9" * 5000, b"\x89PNG\r\n\x1a\n",
       b"PK\x03\x04broken", b"SQLite format 3\x00", "é".encode("utf-16")]

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-10**60, 10**60),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
    st.sampled_from(["x" * 200_000, -0.0, 2**64, -2**63 - 1, "fails", "holds"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)


def _deep(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


SPECIAL = st.sampled_from([_deep(40), _deep(400), {"a": _deep(33)}, float("nan"),
                           float("inf"), [float("-inf")], 1e308, [[1, 2], [3, "x"]]])
ANY_VALUE = st.one_of(VALUES, SPECIAL)


def _json_text(value: object) -> str:
    try:
        return json.dumps(value, allow_nan=True)
    except (ValueError, RecursionError):
        return "[" * 5000 + "]" * 5000


JSON_TEMPLATES = [
    "{}", '{"attndepth_domain_record": 1, "claims": %s}',
    '{"attndepth_domain_record": 1, "claims": {"x": {"failures": %s}}}',
    '{"attndepth_domain_record": 1, "claims": {"x": {"failures": [{"member": %s, '
    '"verdict": "fails", "seed": 1}], "search": null}}}',
    '{"attndepth_domain_record": 1, "claims": {"x": {"failures": [{"member": {}, '
    '"verdict": "fails", "seed": %s}], "map": {}}}}',
    '{"attndepth_domain_record": 1, "claims": {"x": {"failures": [], "search": %s}}}',
    '{"attndepth_outputs": 1, "files": %s}', "%s"]


def _toml_value(value: object, depth: int = 0) -> str:
    """``value`` as a TOML inline value (None as an empty string)."""
    if depth > 5000:
        return "1"
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return {True: "nan"}.get(value != value, repr(value) if abs(value) != float("inf")
                                 else ("inf" if value > 0 else "-inf"))
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item, depth + 1) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v, depth + 1)}"
                               for k, v in value.items()) + "}"
    return '""'


TOML_TEMPLATES = ['measurement = %s\n', 'measurement = "similarity"\n[grid]\nwidth = %s\n',
                  'measurement = "similarity"\nseeds = %s\n',
                  'measurement = "similarity"\n[fixed]\nvariant = %s\n',
                  'measurement = "seprank"\n[zip]\nwidth = %s\ndepth = [1]\n', "x = %s\n"]

def _shipped_tables() -> list[list[list[str]]]:
    """The first rows of the CSV tables attndepth ships (an atlas, knee certificates)."""
    from importlib import resources

    from attndepth.rank.atlas_table import ATLAS_RESOURCE
    from attndepth.rank.knee_certificates import DEFAULT_PATH

    texts = [resources.files(ATLAS_RESOURCE[0]).joinpath(ATLAS_RESOURCE[1]).read_text(),
             DEFAULT_PATH.read_text()]
    return [list(csv.reader(text.splitlines()[:4])) for text in texts]


TABLES = _shipped_tables()
CELLS = st.one_of(st.sampled_from(["", "nan", "-1", "inf", "1e400", "9" * 5000, "\x00",
                                   "[" * 2000, "null", "{}", "[[1,2]]", "[[Infinity]]",
                                   "[[1e400]]", "[[NaN]]", "[[1.5]]", '[["x"]]', "é"]),
                  st.text(max_size=10), ANY_VALUE.map(_json_text))


def _csv_text(table: int, changes: list[tuple[int, int, str]]) -> str:
    rows = [list(row) for row in TABLES[table]]
    for row, column, cell in changes:
        target = rows[row % len(rows)]
        target[column % len(target)] = cell
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _npz_bytes(state: str, damage: int | None) -> bytes:
    from attndepth.simulations.checkpoints import checksum

    arrays = {"x": np.arange(3.0)}
    out = io.BytesIO()
    np.savez(out, identity=np.array("id"), state=np.array(state),
             checksum=np.array(checksum("id", state, arrays)), **arrays)
    data = bytearray(out.getvalue())
    if damage is not None:
        data[damage % len(data)] ^= 0xFF
    return bytes(data)


def _zip_of_junk(names: list[str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in names:
            archive.writestr(name, b"\x93NUMPY junk")
    return out.getvalue()


def hostile(syntax: str) -> st.SearchStrategy[bytes]:
    """Hostile contents of a file of ``syntax`` (one of :data:`SYNTAXES`)."""
    assert syntax in SYNTAXES
    raw = st.sampled_from(RAW)
    if syntax == "json":
        filled = st.builds(lambda t, v: (t % _json_text(v)) if "%s" in t else t,
                           st.sampled_from(JSON_TEMPLATES), ANY_VALUE)
        extra = st.sampled_from(["[[Infinity]]", '{"a": NaN}', "1e400", '{"a": 1e-400}',
                                 '{"attndepth_domain_record": 1, "claims": {"x": '
                                 '{"failures": [], "search": 5}}}'] + [
                                     template % ("9" * 5000) for template in JSON_TEMPLATES
                                     if "%s" in template])
        return st.one_of(raw, filled.map(str.encode), extra.map(str.encode),
                         st.text(max_size=40).map(str.encode))
    if syntax == "toml":
        filled = st.one_of(
            st.builds(lambda t, v: t % _toml_value(v), st.sampled_from(TOML_TEMPLATES),
                      ANY_VALUE),
            st.sampled_from(TOML_TEMPLATES).map(lambda t: t % ("9" * 5000)))
        return st.one_of(raw, filled.map(str.encode), st.text(max_size=40).map(str.encode),
                         st.just(b"# \xff\nmeasurement = \"similarity\"\n"))
    if syntax == "csv":
        rows = st.builds(_csv_text, st.integers(0, len(TABLES) - 1), st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 20), CELLS), min_size=1, max_size=3))
        return st.one_of(raw, rows.map(str.encode))
    states = st.one_of(ANY_VALUE.map(_json_text), st.sampled_from(
        ["[" * 100_000, "9" * 5000, "NaN", "{\"a\": Infinity}", "\udcff"]))
    return st.one_of(raw, st.builds(_npz_bytes, states.map(
        lambda s: s.encode("utf-8", "replace").decode()), st.none() | st.integers(0, 10**6)),
        st.lists(st.sampled_from(["identity.npy", "state.npy", "checksum.npy", "x.npy"]),
                 max_size=4, unique=True).map(_zip_of_junk))
