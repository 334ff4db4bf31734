"""OSV-shaped advisories for the tests, modelled on real published ones.

Each keeps the real record's ids, package, ranges and CVSS vector (from osv.dev at the
time of writing); summaries are shortened. Dates are fixed so cache keys are stable.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MODIFIED = "2024-05-01T12:00:00Z"


def advisory(
    vuln_id: str,
    ecosystem: str,
    name: str,
    events: list[dict[str, str]],
    *,
    aliases: Iterable[str] = (),
    vector: str | None = None,
    range_type: str = "ECOSYSTEM",
    modified: str = MODIFIED,
    **extra: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "schema_version": "1.6.0",
        "id": vuln_id,
        "modified": modified,
        "published": "2021-02-01T00:00:00Z",
        "aliases": list(aliases),
        "summary": f"{name} advisory {vuln_id}",
        "affected": [
            {
                "package": {"ecosystem": ecosystem, "name": name},
                "ranges": [{"type": range_type, "events": events}],
            }
        ],
        "references": [{"type": "ADVISORY", "url": f"https://osv.dev/vulnerability/{vuln_id}"}],
    }
    if vector is not None:
        record["severity"] = [{"type": "CVSS_V3", "score": vector}]
    record.update(extra)
    return record


# GHSA-g3rq-g295-4j3m / CVE-2020-28493: Jinja2 ReDoS in the urlize filter, fixed in 2.11.3.
JINJA2 = advisory(
    "GHSA-g3rq-g295-4j3m",
    "PyPI",
    "jinja2",
    [{"introduced": "0"}, {"fixed": "2.11.3"}],
    aliases=["CVE-2020-28493", "PYSEC-2021-66"],
    vector="CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L",
)
# GHSA-35jh-r3h4-6jhm / CVE-2021-23337: lodash command injection via template, 4.17.21.
LODASH = advisory(
    "GHSA-35jh-r3h4-6jhm",
    "npm",
    "lodash",
    [{"introduced": "0"}, {"fixed": "4.17.21"}],
    aliases=["CVE-2021-23337"],
    vector="CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H",
)
# GO-2020-0015 / CVE-2020-14040: golang.org/x/text UTF-16 decoder infinite loop, 0.3.3.
X_TEXT = advisory(
    "GO-2020-0015",
    "Go",
    "golang.org/x/text",
    [{"introduced": "0"}, {"fixed": "0.3.3"}],
    aliases=["CVE-2020-14040", "GHSA-5rcv-m4m3-hfh7"],
    range_type="SEMVER",
)
X_TEXT["affected"][0]["ecosystem_specific"] = {
    "imports": [
        {
            "path": "golang.org/x/text/encoding/unicode",
            "symbols": ["bomOverride.Transform", "utf16Decoder.Transform"],
        }
    ]
}
# GHSA-wq4h-7r42-5hrr / CVE-2022-30123: rack shell escape in Lint and CommonLogger.
RACK = advisory(
    "GHSA-wq4h-7r42-5hrr",
    "RubyGems",
    "rack",
    [{"introduced": "0"}, {"fixed": "2.1.4.1"}, {"introduced": "2.2.0"}, {"fixed": "2.2.3.1"}],
    aliases=["CVE-2022-30123"],
    vector="CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
)


def write_export(directory: Path, ecosystem: str, records: Iterable[dict[str, Any]]) -> Path:
    """``directory/<ecosystem>/all.zip`` as OSV publishes it: one ``<id>.json`` a member."""
    target = directory / ecosystem / "all.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for record in records:
            archive.writestr(f"{record['id']}.json", json.dumps(record))
    target.write_bytes(buffer.getvalue())
    return target
