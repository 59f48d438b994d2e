"""The one door of every file attndepth reads: bytes, syntax, values, schema."""

import pytest

from attndepth.errors import InvalidParameter
from attndepth.input_files import (
    ANY,
    INTEGER,
    MAX_DEPTH,
    STRING,
    Schema,
    list_of,
    obj,
    parse_json,
    parse_toml,
    read_json,
    read_toml,
    reader,
)


@pytest.mark.parametrize("text, why", [
    ("[" * 200_000 + "]" * 200_000, "nested deeper than"),
    ("[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2), "nested deeper than"),
    ('{"seed": ' + "9" * 5000 + "}", r"an integer of 5,000 digits .* at line 1, column 10"),
    ('{"a": [1, NaN]}', "NaN is not a number"), ("[[Infinity]]", "Infinity is not a number"),
    ("[1e400]", "1e400 is beyond float64's range"), ("{", "is not JSON"),
    ('"' + "x" * 200_000 + '"', "a string of 200,000 characters"),
])
def test_json_values_no_file_holds_are_refused_in_one_line(text, why):
    with pytest.raises(InvalidParameter, match=why) as refused:
        parse_json(text, "--member")
    message = str(refused.value)
    assert message.startswith("--member: ") and "\n" not in message and len(message) < 300


@pytest.mark.parametrize("text, why", [
    ("x = " + "[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ("x = " + "9" * 5000, "an integer of thousands of digits"),
    ("x = " + "9" * 50, "an integer of more than 40 digits at .x"),
    ("x = nan", "beyond float64's range"), ("x = 1979-05-27", "a value of type date"),
    ("x = [", "is not TOML"),
])
def test_toml_values_no_file_holds_are_refused_in_one_line(text, why):
    with pytest.raises(InvalidParameter, match=why) as refused:
        parse_toml(text, "a sweep spec s.toml")
    assert "\n" not in str(refused.value)


def test_a_file_is_read_within_its_size_and_as_utf8(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InvalidParameter, match=r"not UTF-8 text \(byte 7"):
        read_json(path, "a record")
    path.write_bytes(b"[" + b"1," * 100 + b"1]")
    with pytest.raises(InvalidParameter, match="larger than 64 bytes"):
        read_json(path, "a record", max_bytes=64)
    with pytest.raises(InvalidParameter, match="cannot be read"):
        read_json(tmp_path / "missing.json", "a record")
    with pytest.raises(InvalidParameter, match="is a directory"):
        read_toml(tmp_path, "a sweep spec")


SCHEMA = obj({"name": STRING, "seeds": list_of(INTEGER),
              "mode": Schema("string", choices=("a", "b")),
              "rate": Schema("number", minimum=0, maximum=1),
              "extra": obj(extra=ANY)}, required=("name",))


@pytest.mark.parametrize("document, why", [
    ({}, "expected the key 'name'"),
    ({"name": 1}, "expected a string at .name, found an integer"),
    ({"name": "n", "seeds": [1, "2"]}, r"expected an integer at .seeds\[1\], found a string"),
    ({"name": "n", "mode": "c"}, "expected one of 'a', 'b' at .mode"),
    ({"name": "n", "rate": 2}, "expected a number from 0 to 1 at .rate"),
    ({"name": "n", "other": 1}, "unexpected key 'other'"),
    ({"name": "n", "seeds": [True]}, r"expected an integer at .seeds\[0\], found a boolean"),
])
def test_a_schema_names_the_place_and_what_was_expected(document, why):
    with pytest.raises(InvalidParameter, match=why):
        SCHEMA.check(document, "a file F")
    SCHEMA.check({"name": "n", "seeds": [1], "mode": "a", "rate": 0.5, "extra": {"z": []}},
                 "a file F")


def test_a_reader_declares_its_syntax():
    with pytest.raises(InvalidParameter, match="syntax must be one of"):
        reader("a thing", "yaml")
