"""Every option of every subcommand, read from the parser itself, with extreme values.

A new option is covered the day it is added: the walk takes the subcommands and
their options from ``build_parser()``. Each run appends one option with one
extreme value to a small valid command and must end with exit 0, 1, 2 or 3 —
2 and 3 with one ``attndepth`` line as the last on stderr — print no
traceback and no non-finite number, and finish within :data:`LIMIT` seconds
(work limits are checked up front).
"""

import argparse
import io
import re
import signal
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from attndepth.cli.main import build_parser, main

pytestmark = pytest.mark.slow

#: Seconds one command may take: every refusal is up front, every accepted value small.
LIMIT = 120
VALUES = ["9" * 25, str(2**64), "-1", "0", "1e-320", "1e400", "nan", "-inf", "", "é",
          "1,2", "9" * 5000]
#: Options whose value is a file or folder: given paths of every kind too, and their
#: value may be echoed (a file named "nan" is not a number).
PATHS = {"--out", "--store", "--checkpoint", "--claims", "--atlas", "--export", "--to",
         "--counterexamples", "--record", "--text", "--figure"}
SPEC = ('measurement = "similarity"\n[fixed]\nvariant = "pure"\ndepth = 2\ntokens = 3\n'
        'width = 4\n')


def _subcommands() -> dict[str, list[argparse.Action]]:
    """``"atlas spec"`` → the options taking a value (from the parser)."""
    found: dict[str, list[argparse.Action]] = {}

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*prefix, name])
                return
        found[" ".join(prefix)] = [a for a in parser._actions
                                   if a.option_strings and a.nargs != 0]

    walk(build_parser(), [])
    return found


def _base(command: str, tmp: Path) -> list[str]:
    """A small valid command line of ``command`` (its required arguments given)."""
    spec = tmp / "spec.toml"
    spec.write_text(SPEC)
    store = tmp / "s.sqlite"
    if not store.exists():
        assert main(["sweep", str(spec), "--store", str(store), "--quiet"]) == 0
    return {
        "verify": ["verify", "--claim", "levine.degree"],
        "figures": ["figures", "--only", "allocation", "--out", str(tmp / "fig")],
        "atlas spec": ["atlas", "spec", "--missing", "--out", str(tmp / "spec_out.toml")],
        "atlas export": ["atlas", "export", "--store", str(store), "--out",
                         str(tmp / "a.csv")],
        "atlas knees": ["atlas", "knees", "--regime", "2,1", "--out", str(tmp / "k.csv")],
        "map": ["map", "levine.threshold", "--grid", "width=2,3", "--grid", "q_size=1",
                "--out", str(tmp / "m"), "--quiet"],
        "plan": ["plan", "--params", "1e9"],
        "observe": ["observe", _tiny_model(tmp), "--windows", "1", "--tokens", "4"],
        "seprank": ["seprank", "--width", "2", "--depth", "2"],
        "similarity": ["similarity", "--variant", "post-ln", "--depth", "2", "--tokens", "2",
                       "--width", "4"],
        "sweep": ["sweep", str(spec), "--store", str(tmp / "s2.sqlite"), "--quiet"],
        "store check": ["store", "check", str(store)],
        "store recover": ["store", "recover", str(store), "--to", str(tmp / "r.sqlite")],
        "train": ["train", "--variant", "post-ln", "--depth", "1", "--width", "4", "--steps",
                  "2"],
    }[command]


def _tiny_model(tmp: Path) -> str:
    """A tiny model folder (or, without the hf extra, a path observe refuses in one line)."""
    try:
        from tests.tiny_models import tiny_folder

        folder = tmp / "tiny-model"
        return str(folder if (folder / "config.json").exists() else tiny_folder(folder))
    except ImportError:
        return str(tmp / "tiny-model")


class _Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hang


def _check(argv: list[str], echoes_path: bool) -> str | None:
    """What is wrong with one run (None: nothing)."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    except _Hang:
        return f"ran past {LIMIT} s"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    text = err.getvalue()
    lines = text.strip().splitlines()
    if code not in (0, 1, 2, 3):
        return f"exit {code}: {lines[-1:] if lines else ''}"
    if "Traceback" in text:
        return "a traceback"
    # the error: "attndepth: ..." or, from the parser, "attndepth SUBCOMMAND: ..."
    if code in (2, 3) and (not lines or not lines[-1].startswith("attndepth")
                           or sum(line.startswith("attndepth") for line in lines) != 1):
        return f"exit {code} without one attndepth line last on stderr: {lines[-3:]}"
    if code in (2, 3) and len(lines[-1]) > 1500:  # every value echoed shortened
        return f"an error line of {len(lines[-1])} characters: {lines[-1][:100]}"
    if not echoes_path and re.search(r"(?<![\w\"'./-])(nan|-?inf|∞)(?![\w\"'])",
                                     out.getvalue(), re.IGNORECASE):
        return "a non-finite number printed"
    return None


@pytest.mark.parametrize("command", [  # train starts JAX: run last (conftest)
    pytest.param(name, marks=pytest.mark.jax) if name == "train" else name
    for name in sorted(_subcommands())])
def test_every_option_with_extreme_values_ends_cleanly(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)  # a value taken as a relative path lands here, nowhere else
    problems = []
    # a path whose parent cannot be a directory, even for root (who can create /nonexistent)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    for action in _subcommands()[command]:
        option = action.option_strings[0]
        values = VALUES + (["/dev/null", str(tmp_path), str(blocker / "file")]
                           if option in PATHS else [])
        for value in values:
            argv = [*_base(command, tmp_path), option, value]
            problem = _check(argv, option in PATHS)
            if problem:
                problems.append(f"{option} {value[:30]!r}: {problem}")
    assert not problems, "\n".join(problems)


def test_the_walk_sees_every_subcommand():
    assert set(_subcommands()) == {"verify", "figures", "atlas spec", "atlas export",
                                   "atlas knees", "map", "plan", "seprank", "similarity",
                                   "observe", "sweep", "store check", "store recover",
                                   "train"}


def test_the_store_the_walk_uses_is_a_store(tmp_path):
    _base("store check", tmp_path)
    with sqlite3.connect(tmp_path / "s.sqlite") as connection:
        assert connection.execute("SELECT count(*) FROM points").fetchone()[0] == 1
    connection.close()
