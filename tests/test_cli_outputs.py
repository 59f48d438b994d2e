"""Every path the command line writes refuses what it must not overwrite, up front.

One table names each entry point that writes a file and where; every entry is
tried against every hostile thing that can stand there (a sweep store, a file
of the user's, a directory, a link to a device, a pipe, the command's own
input): exit 2, one line on stderr, and the thing unchanged.
"""

import hashlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from attndepth.cli.main import main
from attndepth.cli.outputs import REPORT, emit, output_option, report_unsaved

SPEC = ('measurement = "similarity"\n[fixed]\nvariant = "pure"\ndepth = 2\ntokens = 3\n'
        'width = 4\n')


def _argv(entry: str, tmp: Path) -> tuple[list[str], Path, Path | None]:
    """The command line of ``entry``, the file it would write, and its input (if any)."""
    spec = tmp / "spec.toml"
    spec.write_text(SPEC)
    out = tmp / "out"
    table = {
        "seprank --checkpoint": (["seprank", "--width", "1", "--depth", "1", "--tokens", "2",
                                  "--method", "blocks", "--checkpoint", str(out)], out, None),
        "train --checkpoint": (["train", "--variant", "post-ln", "--depth", "1", "--width",
                                "4", "--steps", "1", "--checkpoint", str(out)], out, None),
        "atlas spec --out": (["atlas", "spec", "--out", str(out)], out, None),
        "atlas export --out": (["atlas", "export", "--store", str(tmp / "in.sqlite"),
                                "--out", str(out)], out, tmp / "in.sqlite"),
        "atlas knees --out": (["atlas", "knees", "--regime", "2,1", "--out", str(out)], out,
                              None),
        "figures --out": (["figures", "--only", "similarity_depth", "--out", str(tmp / "f")],
                          tmp / "f" / "similarity_depth.pdf", None),
        "map --out": (["map", "levine.threshold", "--grid", "width=2,3", "--grid", "q_size=1",
                       "--out", str(tmp / "m")], tmp / "m" / "levine.threshold.csv", None),
        "verify --out": (["verify", "--claim", "levine.degree", "--out", str(out)], out, None),
        "verify --search --counterexamples": (
            ["verify", "--search", "--claim", "levine.degree", "--draws", "0",
             "--counterexamples", str(out) + ".csv"], Path(str(out) + ".csv"), None),
        "verify --record": (["verify", "--claim", "levine.degree", "--member",
                             '{"width": 2, "depth": 1, "heads": 1, "tokens": 2}',
                             "--record", str(out)], out, None),
        "sweep --export": (["sweep", str(spec), "--store", str(tmp / "s.sqlite"), "--quiet",
                            "--export", str(out)], out, spec),
    }
    return table[entry]


ENTRIES = ["seprank --checkpoint", "train --checkpoint", "atlas spec --out",
           "atlas export --out", "atlas knees --out", "figures --out", "map --out", "verify --out",
           "verify --search --counterexamples", "verify --record", "sweep --export"]
HOSTILE = ["store", "user file", "directory", "link to a device", "pipe"]
#: The entries that read a file their output could be pointed at.
READING = ["atlas export --out", "sweep --export"]
CASES = [(entry, hostile) for entry in ENTRIES for hostile in HOSTILE] + \
    [(entry, "input") for entry in READING]


def _place(hostile: str, target: Path) -> Path:
    """Put ``hostile`` at ``target``; the path whose state must not change."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if hostile == "store":
        with sqlite3.connect(target) as connection:
            connection.execute("CREATE TABLE points (x)")
        connection.close()
    elif hostile == "user file":
        target.write_text("my notes, a day of work\n")
    elif hostile == "directory":
        target.mkdir()
        (target / "inside").write_text("kept")
    elif hostile == "link to a device":
        target.symlink_to(os.devnull)
    elif hostile == "pipe":
        os.mkfifo(target)
    return target


def _state(path: Path) -> tuple:
    """What must stay as it was: the kind of entry, and its bytes if it is a file."""
    mode = os.lstat(path).st_mode
    if stat.S_ISREG(mode):
        return mode, hashlib.sha256(path.read_bytes()).hexdigest()
    if stat.S_ISDIR(mode):
        return mode, sorted(p.name for p in path.iterdir())
    return mode, os.readlink(path) if stat.S_ISLNK(mode) else None


@pytest.mark.parametrize("entry, hostile", CASES)
def test_an_output_path_never_destroys_what_stands_there(tmp_path, capsys, entry, hostile):
    argv, target, source = _argv(entry, tmp_path)
    if hostile == "input":
        assert source is not None
        argv = [str(source) if a == str(target) else a for a in argv]
        if entry == "atlas export --out":
            with sqlite3.connect(source) as connection:
                connection.execute("CREATE TABLE points (x)")
            connection.close()
        guarded = source
    else:
        guarded = _place(hostile, target)
    if entry == "train --checkpoint":
        pytest.importorskip("jax")
    before = _state(guarded)
    capsys.readouterr()
    assert main(argv) == 2, (entry, hostile)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "left untouched" in err or "input" in err, err
    assert _state(guarded) == before
    if hostile == "link to a device":
        assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_an_earlier_report_is_replaced_and_a_user_file_is_not(tmp_path, capsys):
    out = tmp_path / "report.json"
    for _ in range(2):  # the second run replaces the first's report
        assert main(["verify", "--claim", "levine.degree", "--format", "json",
                     "--out", str(out)]) == 0
    assert out.read_text().lstrip().startswith("{")
    for fmt in ("table", "markdown", "latex"):
        main(["verify", "--claim", "levine.degree", "--format", fmt, "--out", str(out)])
        assert REPORT.recognises(out.read_bytes()), fmt
    claims = tmp_path / "mine.py"
    claims.write_text("# my claims\n")
    with pytest.raises(ValueError, match="left untouched"):
        output_option(str(claims), REPORT, "--out")


def test_emit_prints_without_a_file(capsys):
    emit("text", None)
    assert capsys.readouterr().out == "text\n"


def test_report_unsaved_is_exit_3_with_one_line_each(capsys):
    assert report_unsaved([]) == 0
    assert report_unsaved(["could not write c.npz (No space left on device)"]) == 3
    assert capsys.readouterr().err.count("\n") == 1


def test_the_sweep_export_replaces_its_own_earlier_table(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    out = tmp_path / "table.csv"
    for _ in range(2):
        assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"), "--quiet",
                     "--export", str(out)]) == 0
    assert out.read_text().count("\n") == 2  # the header and the one point


#: Each command with an output folder (a DIR option): a small command line, and the
#: names it writes there (a new folder option needs an entry).
FOLDER_COMMANDS = {
    ("figures", "--out"): (["figures", "--only", "allocation"], "allocation"),
    ("map", "--out"): (["map", "levine.threshold", "--grid", "width=2", "--grid", "q_size=1",
                        "--value", "offset", "--band=-1,1", "--no-fit", "--quiet"],
                       "levine.threshold"),
    # a tiny model folder made by the test (its name: "tiny"), so torch and transformers
    ("observe", "--figure"): (["observe", "tiny", "--windows", "2", "--tokens", "4"],
                              "observe-tiny"),
}


def _folder_options() -> set[tuple[str, str]]:
    import argparse

    from attndepth.cli.main import build_parser

    found = set()
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= {(name, a.option_strings[-1]) for a in sub._actions
                          if a.metavar == "DIR" and a.option_strings}
    return found


def test_every_output_folder_of_the_command_line_is_covered():
    assert _folder_options() == set(FOLDER_COMMANDS)


@pytest.mark.parametrize("command, option", sorted(FOLDER_COMMANDS))
def test_an_output_folder_keeps_a_users_csv_and_a_link(command, option, tmp_path, capsys):
    argv, stem = FOLDER_COMMANDS[command, option]
    if command == "observe":
        pytest.importorskip("transformers", reason="observe needs the hf extra")
        from tests.tiny_models import tiny_folder

        argv = [argv[0], str(tiny_folder(tmp_path / "tiny")), *argv[2:]]
        capsys.readouterr()  # what saving the model printed
    folder = tmp_path / "out"
    folder.mkdir()
    mine = folder / f"{stem}.csv"
    mine.write_text("my,data\n1,2\n")
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"\x89PNG\r\n\x1a\nmine")
    (folder / f"{stem}.png").symlink_to(outside)
    assert main([*argv, option, str(folder)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "left untouched" in line
    assert mine.read_text() == "my,data\n1,2\n"
    assert outside.read_bytes() == b"\x89PNG\r\n\x1a\nmine"
    assert (folder / f"{stem}.png").is_symlink()
    mine.unlink()
    (folder / f"{stem}.png").unlink()
    assert main([*argv, option, str(folder)]) in (0, 1)  # its own files: written again
    assert main([*argv, option, str(folder)]) in (0, 1)
    capsys.readouterr()
