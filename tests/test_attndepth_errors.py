"""The error vocabulary: what each class also is, and how the command line reports it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth import errors
from attndepth.cli.main import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, main
from attndepth.simulations.models.stacks import StackConfig


@pytest.mark.parametrize("error, standard", [
    (errors.InvalidParameter, ValueError), (errors.InvalidType, TypeError),
    (errors.Overflow, ArithmeticError), (errors.Overflow, ValueError),
    (errors.MissingExtra, ImportError), (errors.DamagedStore, ValueError),
    (errors.CheckFailed, ArithmeticError), (errors.WorkerDied, RuntimeError),
])
def test_each_error_is_also_the_standard_type_users_catch(error, standard):
    assert issubclass(error, errors.AttndepthError) and issubclass(error, standard)


def test_bad_input_raises_an_attndepth_error():
    with pytest.raises(errors.InvalidParameter, match="depth"):
        StackConfig(depth=-1)


def test_bad_input_is_one_line_and_exit_2(capsys):
    assert main(["similarity", "--depth", "-3"]) == EXIT_BAD_INPUT
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_an_internal_bug_is_not_bad_input(monkeypatch, capsys):
    # a shape bug inside the toolkit (numpy raises ValueError) must not read as bad input
    from attndepth.simulations.models.blocks import NumpyOps

    def broken(X, *args, **kwargs):
        raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0")

    monkeypatch.setattr(NumpyOps, "layer_norm", staticmethod(broken))
    code = main(["similarity", "--variant", "post-ln", "--depth", "2", "--tokens", "4",
                 "--width", "8"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL_ERROR
    assert "internal error" in err and "Traceback" in err and "matmul" in err


@given(folders=st.lists(st.text(alphabet="ab/é ", min_size=1, max_size=300), max_size=4),
       name=st.text(alphabet="xyz.", min_size=1, max_size=30))
def test_a_long_path_is_cut_in_its_middle_keeping_the_file_name(folders, name):
    path = "/".join(["", *folders, name])
    text = errors.shown_path(path)
    assert len(text) <= 160 + 30 and "\n" not in text
    assert text == path or (text.startswith(path[:40]) and f"{name} (" in text
                            and f"({len(path):,} characters)" in text)


def test_a_long_word_in_any_message_keeps_both_ends():
    word = "/" + "d" * 300 + "/hostile.file"
    line = errors.shorten_quoted(f"cannot read {word}: no such file")
    assert line.startswith("cannot read /ddd") and "/hostile.file:" in line
    assert len(line) < 160 and line.endswith("hostile.file: (314 characters) no such file")
    assert errors.shorten_long_words(f"'{'x' * 1000}'.") == \
        f"'{'x' * 20}…{'x' * 60}'. (1,000 characters)"
