"""Every confirm_* check is remembered per process, and bad input still gets its error."""

import importlib
import inspect
import pkgutil

import pytest

import attndepth.theory
from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache


def _confirm_functions():
    for info in pkgutil.iter_modules(attndepth.theory.__path__):
        module = importlib.import_module(f"attndepth.theory.{info.name}")
        for name, function in vars(module).items():
            if name.startswith("confirm_") and inspect.isfunction(function) \
                    and function.__module__ == module.__name__:
                yield f"{info.name}.{name}", function


CONFIRMS = dict(_confirm_functions())


def test_the_theory_has_confirm_checks():
    assert len(CONFIRMS) >= 20


@pytest.mark.parametrize("name", sorted(CONFIRMS))
def test_every_confirm_check_is_cached(name):
    assert hasattr(CONFIRMS[name], "cache_clear"), f"{name} lacks @proof_cache"
    assert inspect.unwrap(CONFIRMS[name]).__name__ == name.split(".")[1]


def test_a_cached_check_runs_once_per_arguments_and_keeps_bools_apart():
    calls = []

    @proof_cache
    def confirm_even(value):
        calls.append(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidParameter(f"value must be an int, got {value!r}")
        return value % 2 == 0

    assert confirm_even(2) and confirm_even(2) and calls == [2]
    assert not confirm_even(1)
    with pytest.raises(ValueError):
        confirm_even(True)  # equal to 1, yet refused: typed
    with pytest.raises(ValueError):
        confirm_even([2])  # unhashable: the check's own error, not the cache's
    with pytest.raises(ValueError):
        confirm_even(True)  # an error is never remembered
    assert calls == [2, 1, True, [2], True]
