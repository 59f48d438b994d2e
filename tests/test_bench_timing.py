from bench.timing import best_of, interleaved, table


def test_best_of_and_interleaved_return_non_negative_seconds():
    calls = []
    assert best_of(lambda: calls.append(1), 3) >= 0 and len(calls) == 3
    first, second = interleaved(lambda: calls.append("a"), lambda: calls.append("b"), 2)
    assert first >= 0 and second >= 0
    assert calls[3:] == ["a", "b", "a", "b"]


def test_table_formats_floats_to_four_digits_and_handles_no_rows():
    text = table("T", [{"x": 1.23456789, "y": "s", "z": 3}], note="n")
    assert text.splitlines() == ["## T", "", "n", "", "| x | y | z |", "|---|---|---|",
                                 "| 1.235 | s | 3 |"]
    assert "(no result)" in table("Empty", [])


def test_a_pipe_inside_a_cell_does_not_split_the_markdown_table():
    from bench.timing import table

    lines = table("t", [{"max |Δ state|": 0.0, "shape": "a|b"}]).splitlines()
    assert lines[2] == r"| max \|Δ state\| | shape |" and lines[4] == r"| 0 | a\|b |"
