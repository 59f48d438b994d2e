import pytest

from attndepth.figures.style import DOUBLE_COLUMN_INCHES, SINGLE_COLUMN_INCHES, new_figure


def test_column_widths():
    figure, _ = new_figure(1)
    assert figure.get_figwidth() == SINGLE_COLUMN_INCHES
    figure, _ = new_figure(2)
    assert figure.get_figwidth() == DOUBLE_COLUMN_INCHES
    with pytest.raises(ValueError, match="columns"):
        new_figure(3)
