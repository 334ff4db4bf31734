"""OfflineDatabase on OSV-shaped all.zip exports generated at test time."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from tests.deps.osv.advisories import JINJA2, LODASH, RACK, X_TEXT, advisory, write_export
from thresher.deps.model import Ecosystem
from thresher.deps.osv import OfflineDatabase, OsvError, PackageVersion

E = Ecosystem


@pytest.fixture
def export(tmp_path: Path) -> Path:
    withdrawn = advisory(
        "PYSEC-2000-1", "PyPI", "jinja2", [{"introduced": "0"}], withdrawn="2022-01-01T00:00:00Z"
    )
    write_export(tmp_path, "PyPI", [JINJA2, withdrawn])
    write_export(tmp_path, "npm", [LODASH])
    write_export(tmp_path, "Go", [X_TEXT])
    write_export(tmp_path, "RubyGems", [RACK])
    return tmp_path


def ids(db: OfflineDatabase, ecosystem: Ecosystem, name: str, version: str) -> list[str]:
    package = PackageVersion(ecosystem, name, version)
    return [v.id for v in db.lookup([package])[package]]


def test_matches_with_each_ecosystems_ordering(export: Path) -> None:
    db = OfflineDatabase(export)
    assert ids(db, E.PYPI, "jinja2", "2.11.2") == ["GHSA-g3rq-g295-4j3m"]
    assert ids(db, E.PYPI, "Jinja2", "2.11.3rc1") == ["GHSA-g3rq-g295-4j3m"]  # PEP 503 name
    assert ids(db, E.PYPI, "jinja2", "2.11.3") == []
    assert ids(db, E.NPM, "lodash", "4.17.20") == ["GHSA-35jh-r3h4-6jhm"]
    assert ids(db, E.NPM, "lodash", "4.17.21") == []
    # A go.mod pseudo-version of x/text from before 0.3.3 is inside the range.
    assert ids(db, E.GO, "golang.org/x/text", "v0.0.0-20191109021931-daa7c04131f5") == [
        "GO-2020-0015"
    ]
    assert ids(db, E.GO, "golang.org/x/text", "v0.3.3") == []
    # rack: two introduced/fixed pairs, four-segment Gem versions.
    assert ids(db, E.RUBYGEMS, "rack", "2.1.4") == ["GHSA-wq4h-7r42-5hrr"]
    assert ids(db, E.RUBYGEMS, "rack", "2.1.4.1") == []
    assert ids(db, E.RUBYGEMS, "rack", "2.2.3") == ["GHSA-wq4h-7r42-5hrr"]
    assert ids(db, E.RUBYGEMS, "rack", "2.2.3.1") == []


def test_carries_symbols_aliases_and_fixed_versions(export: Path) -> None:
    db = OfflineDatabase(export)
    package = PackageVersion(E.GO, "golang.org/x/text", "v0.3.2")
    (vuln,) = db.lookup([package])[package]
    (entry,) = vuln.affecting(E.GO, "golang.org/x/text")
    assert entry.imports == ("golang.org/x/text/encoding/unicode",)
    assert "utf16Decoder.Transform" in entry.symbols
    assert vuln.fixed_versions(E.GO, "golang.org/x/text") == ("0.3.3",)
    assert "CVE-2020-14040" in vuln.aliases


def test_withdrawn_advisories_do_not_match(export: Path) -> None:
    assert ids(OfflineDatabase(export), E.PYPI, "jinja2", "2.0") == ["GHSA-g3rq-g295-4j3m"]


def test_an_unorderable_range_is_a_reported_problem_not_a_silent_skip(tmp_path: Path) -> None:
    odd = advisory("PYSEC-2001-1", "PyPI", "flask", [{"introduced": "not.a.version!"}])
    write_export(
        tmp_path, "PyPI", [odd, advisory("PYSEC-2001-2", "PyPI", "flask", [{"introduced": "0"}])]
    )
    db = OfflineDatabase(tmp_path)
    assert ids(db, E.PYPI, "flask", "2.0.0") == ["PYSEC-2001-2"]
    assert len(db.problems) == 1 and "PYSEC-2001-1" in db.problems[0]


def test_a_missing_export_names_the_file_and_the_download(tmp_path: Path) -> None:
    with pytest.raises(OsvError, match=r"crates\.io") as caught:
        OfflineDatabase(tmp_path).lookup([PackageVersion(E.CRATES_IO, "time", "0.1.0")])
    assert caught.value.hint is not None
    assert "osv-vulnerabilities.storage.googleapis.com/crates.io/all.zip" in caught.value.hint


def test_a_corrupt_export_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "npm").mkdir()
    (tmp_path / "npm" / "all.zip").write_bytes(b"not a zip")
    with pytest.raises(OsvError, match="cannot read"):
        OfflineDatabase(tmp_path).lookup([PackageVersion(E.NPM, "lodash", "1.0.0")])
    with zipfile.ZipFile(tmp_path / "npm" / "all.zip", "w") as archive:
        archive.writestr("GHSA-x.json", "{not json")
    with pytest.raises(OsvError, match=r"GHSA-x\.json is not JSON"):
        OfflineDatabase(tmp_path).lookup([PackageVersion(E.NPM, "lodash", "1.0.0")])


def test_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(OsvError, match="not a directory"):
        OfflineDatabase(tmp_path / "absent")


def test_the_persistent_index_answers_later_runs_and_follows_a_new_export(
    export: Path, tmp_path: Path
) -> None:
    index = tmp_path / ".thresher" / "osv-offline-index.db"
    jinja = PackageVersion(E.PYPI, "Jinja2", "2.11.2")
    with OfflineDatabase(export, index=index) as db:
        assert [v.id for v in db.lookup([jinja])[jinja]] == ["GHSA-g3rq-g295-4j3m"]
    # Same size and time, unreadable content: a later run never opens the zip again.
    zip_path = export / "PyPI" / "all.zip"
    stat = zip_path.stat()
    zip_path.write_bytes(b"\0" * stat.st_size)
    os.utime(zip_path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with OfflineDatabase(export, index=index) as db:
        (vuln,) = db.lookup([jinja])[jinja]
    assert vuln.aliases == ("CVE-2020-28493", "PYSEC-2021-66")
    # A new export (a new advisory for the package) is re-indexed on first use.
    extra = advisory("PYSEC-2099-1", "PyPI", "jinja2", [{"introduced": "2.0"}])
    write_export(export, "PyPI", [JINJA2, extra])
    with OfflineDatabase(export, index=index) as db:
        assert sorted(v.id for v in db.lookup([jinja])[jinja]) == [
            "GHSA-g3rq-g295-4j3m",
            "PYSEC-2099-1",
        ]


def test_a_malformed_advisory_is_a_problem_and_the_rest_still_match(tmp_path: Path) -> None:
    broken = {
        "id": "PYSEC-2002-1",
        "affected": [{"package": {"ecosystem": "PyPI", "name": "flask"}}],
    }
    good = advisory("PYSEC-2002-2", "PyPI", "flask", [{"introduced": "0"}])
    write_export(tmp_path, "PyPI", [broken, good])
    for index in (None, tmp_path / "index.db"):
        with OfflineDatabase(tmp_path, index=index) as db:
            assert ids(db, E.PYPI, "flask", "1.0") == ["PYSEC-2002-2"]
            assert len(db.problems) == 1 and "PYSEC-2002-1" in db.problems[0]
