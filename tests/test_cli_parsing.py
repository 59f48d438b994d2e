"""The parser's plumbing: no two path arguments name one file (every pair of every
subcommand, enumerated from the parser), and every echoed value is shortened."""

import argparse
import itertools

import pytest

from attndepth.cli._parsing import PATH_METAVARS, integer
from attndepth.cli.main import EXIT_BAD_INPUT, build_parser, main


def _path_arguments() -> dict[tuple[str, ...], list[argparse.Action]]:
    """Subcommand words -> its arguments that name files or folders (from the parser)."""
    found: dict[tuple[str, ...], list[argparse.Action]] = {}

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*words, name))
                return
        found[words] = [a for a in parser._actions if a.metavar in PATH_METAVARS]

    walk(build_parser(), ())
    return found


#: What each subcommand needs besides its path arguments (a subcommand with two path
#: arguments needs an entry here).
REQUIRED = {("verify",): ["--search", "--claim", "levine.degree"],
            ("map",): ["levine.threshold", "--grid", "width=2"],
            ("figures",): [], ("atlas", "spec"): [], ("atlas", "export"): [],
            ("atlas", "knees"): ["--regime", "2,1"], ("sweep",): [],
            ("store", "recover"): [], ("observe",): ["minilm-l6"]}


def _pairs():
    for words, actions in _path_arguments().items():
        for first, second in itertools.combinations(actions, 2):
            yield pytest.param(words, first, second,
                               id=f"{' '.join(words)} {first.dest}={second.dest}")


def test_every_subcommand_with_two_path_arguments_is_covered():
    assert {w for w, actions in _path_arguments().items() if len(actions) > 1} <= set(REQUIRED)


def _argument(action: argparse.Action, value: str) -> list[str]:
    return [action.option_strings[-1], value] if action.option_strings else [value]


@pytest.mark.parametrize("words, first, second", list(_pairs()))
def test_two_path_arguments_naming_one_new_file_are_refused_before_any_work(
        words, first, second, tmp_path, capsys):
    same = tmp_path / "same.file"
    positional = [a for a in _path_arguments()[words] if not a.option_strings]
    argv = [*words, *REQUIRED[words]]
    for action in (first, second):
        argv += _argument(action, str(same))
    for action in positional:  # a required positional not in the pair
        if action not in (first, second):
            argv.append(str(tmp_path / "other.file"))
    assert main(argv) == EXIT_BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "name the same file" in line and not same.exists(), line


def test_a_long_value_is_echoed_shortened(capsys):
    assert main(["similarity", "--depth", "9" * 5000]) == EXIT_BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert len(line) < 300, line
    with pytest.raises(argparse.ArgumentTypeError, match="at most 40 digits"):
        integer("9" * 41)
    assert main(["verify", "--claim", "x" * 100_000]) == EXIT_BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()  # the echo cut, the known ids kept
    assert "(100,000 characters)" in line and len(line) < 2000, line[:400]
