"""The error vocabulary: what each class also is, and how the command line reports it."""

import pytest

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
