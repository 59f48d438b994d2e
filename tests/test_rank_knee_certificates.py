"""The shipped knee certificates: read, checked, found; a damaged file is refused."""

import pytest

from attndepth.errors import DamagedStore
from attndepth.rank.knee_certificates import (
    FIELDS,
    KneeCertificate,
    certificate_command,
    certificates_text,
    read_certificates,
    shipped_certificate,
    shipped_certificates,
)


def _certificate(rank: int = 18, command: str | None = None) -> KneeCertificate:
    return KneeCertificate(2, 2, 2, rank, "blocks", 13, 0, 0, 0.03, "0.1.0",
                           command or certificate_command(2, 2, 2, "blocks", 13, 0, 0))


def test_every_shipped_certificate_is_checked_and_names_its_command():
    for found in shipped_certificates():
        assert found.command.startswith(f"attndepth seprank --width {found.width} ")
        assert found.method in ("blocks", "torus")


def test_a_file_round_trips_through_its_text(tmp_path):
    path = tmp_path / "knees.csv"
    path.write_text(certificates_text([_certificate()]))
    assert read_certificates(path) == (_certificate(),)
    assert path.read_text().splitlines()[0] == ",".join(FIELDS)


@pytest.mark.parametrize(("row", "error", "match"), [
    (_certificate(rank=10**6), DamagedStore, "outside"),  # above bound (d)
    (_certificate(rank=1), DamagedStore, "outside"),
    (_certificate(command="attndepth seprank --width 9"), DamagedStore, "does not name its class"),
])
def test_a_damaged_row_is_refused_naming_it(tmp_path, row, error, match):
    path = tmp_path / "knees.csv"
    path.write_text(certificates_text([row]))
    with pytest.raises(error, match=match):
        read_certificates(path)


def test_a_file_that_is_not_one_is_refused(tmp_path):
    path = tmp_path / "knees.csv"
    path.write_text("width,depth\n1,2\n")
    with pytest.raises(DamagedStore, match="header"):
        read_certificates(path)
    path.write_text(",".join(FIELDS) + "\n2,2,two,18,blocks,13,0,0,0.03,0.1.0,x\n")
    with pytest.raises(DamagedStore, match="row 2"):
        read_certificates(path)


def test_a_certificate_is_found_only_where_it_reaches_the_target(monkeypatch):
    import attndepth.rank.knee_certificates as module

    monkeypatch.setattr(module, "shipped_certificates", lambda: (_certificate(),))
    assert shipped_certificate(2, 2, 2, 18) == _certificate()
    assert shipped_certificate(2, 2, 2, 19) is None and shipped_certificate(2, 2, 3, 2) is None


def test_a_lookup_with_a_bad_size_is_refused_in_one_line():
    with pytest.raises(ValueError, match="width"):
        shipped_certificate(0, 2, 2, 18)
    with pytest.raises(ValueError, match="target must be an integer"):
        shipped_certificate(2, 2, 2, "18")
