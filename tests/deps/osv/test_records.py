"""OSV JSON to Vulnerability: CVSS choice, imports/symbols, and malformed records."""

from __future__ import annotations

import pytest

from tests.deps.osv.advisories import JINJA2, X_TEXT
from thresher.deps.model import RangeType
from thresher.deps.osv import OsvError, parse_record

V3 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L"
V4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"


def test_the_newest_cvss_vector_sets_the_score() -> None:
    both = {
        **JINJA2,
        "severity": [{"type": "CVSS_V3", "score": V3}, {"type": "CVSS_V4", "score": V4}],
    }
    cvss = parse_record(both, origin="t").cvss
    assert cvss is not None and (cvss.version, cvss.base_score) == ("4.0", 9.3)
    broken_v4 = {
        **JINJA2,
        "severity": [
            {"type": "CVSS_V4", "score": "CVSS:4.0/AV:N"},
            {"type": "CVSS_V3", "score": V3},
        ],
    }
    cvss = parse_record(broken_v4, origin="t").cvss
    assert cvss is not None and (cvss.version, cvss.base_score) == ("3.1", 5.3)
    assert parse_record({**JINJA2, "severity": []}, origin="t").cvss is None


def test_ranges_imports_and_symbols_are_kept() -> None:
    vuln = parse_record(X_TEXT, origin="t")
    (entry,) = vuln.affected
    assert entry.ranges[0].type is RangeType.SEMVER
    assert entry.imports == ("golang.org/x/text/encoding/unicode",)
    assert entry.symbols == ("bomOverride.Transform", "utf16Decoder.Transform")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "not a JSON object"),
        ({**JINJA2, "id": 7}, "'id' is missing"),
        ({**JINJA2, "modified": "yesterday"}, "does not fit the OSV schema"),
        ({**JINJA2, "affected": [{"ranges": []}]}, "has no package"),
        ({**JINJA2, "affected": [{**JINJA2["affected"][0], "ranges": [{"type": "SVN"}]}]}, "'SVN'"),
        ({**JINJA2, "aliases": "CVE-1"}, "'aliases' is not a list of strings"),
    ],
)
def test_a_malformed_record_is_an_osv_error_naming_its_origin(record: object, message: str) -> None:
    with pytest.raises(OsvError, match=message) as caught:
        parse_record(record, origin="PyPI/all.zip:X.json")
    assert "PyPI/all.zip:X.json" in str(caught.value)
