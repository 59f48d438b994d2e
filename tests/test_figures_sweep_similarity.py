import pytest

from attndepth.cli import main
from attndepth.figures import sweep_similarity
from attndepth.simulations.sweep import parse_spec, run_sweep


def test_figure_from_a_sweep_store(tmp_path, capsys):
    spec = parse_spec({"measurement": "similarity", "seeds": [0, 1],
                       "grid": {"variant": ["post-ln", "pre-ln"]},
                       "fixed": {"depth": 6, "tokens": 4, "width": 8}})
    store = tmp_path / "s.sqlite"
    run_sweep(spec, store, workers=1, progress=False)
    data = sweep_similarity.compute_from_store(store)
    assert len(set(data["config"])) == 2 and set(data["seeds"]) == {2}
    assert main(["figures", "--store", str(store), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "sweep_similarity.png").stat().st_size > 0


def test_missing_or_empty_store(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        sweep_similarity.compute_from_store(tmp_path / "none.sqlite")
    from attndepth.simulations.store import open_store

    open_store(tmp_path / "empty.sqlite").close()
    with pytest.raises(ValueError, match="no finished"):
        sweep_similarity.compute_from_store(tmp_path / "empty.sqlite")
