"""``attndepth figures``: the files it writes and its listing."""



from attndepth.cli.main import main


def test_figures_writes_pdf_png_csv(tmp_path, capsys):
    assert main(["figures", "--out", str(tmp_path), "--only", "similarity_depth"]) == 0
    for ext in ("pdf", "png", "csv"):
        assert (tmp_path / f"similarity_depth.{ext}").stat().st_size > 0


def test_figures_list(capsys):
    assert main(["figures", "--list"]) == 0
    assert "postln_rate" in capsys.readouterr().out
