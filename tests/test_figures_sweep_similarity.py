import pytest

from attndepth.cli.main import main
from attndepth.figures import sweep_similarity
from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep


def test_figure_from_a_sweep_store(tmp_path, capsys):
    spec = parse_spec({"measurement": "similarity", "seeds": [0, 1, 2],
                       "grid": {"variant": ["pre-ln", "post-ln"], "width": [16, 8]},
                       "fixed": {"depth": 6, "tokens": 4}})
    store = tmp_path / "s.sqlite"
    run_sweep(spec, store, workers=1, progress=False)
    data = sweep_similarity.compute_from_store(store)
    curves = list(dict.fromkeys(zip(data["variant"], data["label"], strict=True)))
    # Sorted, and labelled only by what varies (the variant goes to the colour).
    assert curves == [("post-ln", "width=8"), ("post-ln", "width=16"), ("pre-ln", "width=8"),
                      ("pre-ln", "width=16")]
    assert set(data["seeds"]) == {3}
    assert all(q10 <= m <= q90 for q10, m, q90 in zip(data["q10"], data["median"], data["q90"],
                                                       strict=True))
    from figure_rules import figure_problems
    from matplotlib.colors import to_hex

    from attndepth.figures.style import variant_colour

    figure = sweep_similarity.draw(data)
    assert figure_problems(figure) == []
    lines = [line for line in figure.axes[0].get_lines()
             if not line.get_label().startswith("_")]
    assert [to_hex(line.get_color()) for line in lines] == [
        to_hex(variant_colour(variant)) for variant, _ in curves]
    assert len({line.get_linestyle() for line in lines}) == 2  # one per width
    assert main(["figures", "--store", str(store), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "sweep_similarity.png").stat().st_size > 0


def test_missing_or_empty_store(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        sweep_similarity.compute_from_store(tmp_path / "none.sqlite")
    from attndepth.simulations.sweeps.store import open_store

    open_store(tmp_path / "empty.sqlite").close()
    with pytest.raises(ValueError, match="no finished"):
        sweep_similarity.compute_from_store(tmp_path / "empty.sqlite")
