"""OSV matching for a 2,000-package lockfile: offline time, online round trips.

Run from the project root: ``python benchmarks/osv_offline.py [--advisories N]
[--packages N] [--runs N]``. It writes an OSV-shaped ``all.zip`` export of ``N``
advisories (PyPI and npm, several ranges each, realistic sizes) to a temporary
directory, then times ``OfflineDatabase.lookup`` on ``--packages`` package versions,
half of them inside some advisory's range:

* the first run, which parses the export into the persistent index (once per export);
* each later run with the index (open it and match: what a ``thresher deps
  --osv-offline DIR`` run pays), the match alone, and, for comparison, a run without
  the index (reading the zips every time).

It prints the medians against the target (a 2,000-package lockfile in under 1 s), then
runs ``OsvClient`` against the loopback fake OSV API (``tests/fakes/osv.py``) on the
same packages and prints its querybatch round trips (target: at most 2) and detail
fetches.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.fakes.osv import OsvFake, OsvWorld  # noqa: E402

from thresher.deps.model import Ecosystem  # noqa: E402
from thresher.deps.osv import OfflineDatabase, OsvClient, PackageVersion  # noqa: E402

TARGET_SECONDS = 1.0
ECOSYSTEMS = (Ecosystem.PYPI, Ecosystem.NPM)


def record(n: int, ecosystem: Ecosystem, name: str, rng: random.Random) -> dict[str, Any]:
    major = rng.randint(0, 5)
    events = [{"introduced": "0"}, {"fixed": f"{major}.{rng.randint(0, 9)}.0"}]
    events += [{"introduced": f"{major + 1}.0.0"}, {"fixed": f"{major + 1}.{rng.randint(1, 9)}.3"}]
    return {
        "id": f"BENCH-{n:06d}",
        "modified": "2024-01-01T00:00:00Z",
        "aliases": [f"CVE-2024-{n:05d}"],
        "summary": "x" * 80,
        "details": "y" * 600,
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"}],
        "affected": [
            {
                "package": {"ecosystem": ecosystem.value, "name": name},
                "ranges": [{"type": "ECOSYSTEM", "events": events}],
                "versions": [f"{major}.0.{k}" for k in range(10)],
            }
        ],
        "references": [{"type": "WEB", "url": f"https://example.org/{n}"}],
    }


def write_exports(directory: Path, advisories: int, names: int, rng: random.Random) -> None:
    for ecosystem in ECOSYSTEMS:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for n in range(advisories // len(ECOSYSTEMS)):
                name = f"pkg-{rng.randrange(names)}"
                item = record(n, ecosystem, name, rng)
                archive.writestr(f"{item['id']}.json", json.dumps(item))
        (directory / ecosystem.value).mkdir()
        (directory / ecosystem.value / "all.zip").write_bytes(buffer.getvalue())


def packages(count: int, names: int, rng: random.Random) -> list[PackageVersion]:
    return [
        PackageVersion(
            ECOSYSTEMS[n % 2], f"pkg-{rng.randrange(names)}", f"{rng.randint(0, 6)}.{n % 10}.1"
        )
        for n in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--advisories", type=int, default=20_000)
    parser.add_argument("--packages", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(12)
    names = args.advisories // 4
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write_exports(directory, args.advisories, names, rng)
        wanted = packages(args.packages, names, rng)
        index = directory / "index" / "osv-offline-index.db"
        start = time.perf_counter()
        with OfflineDatabase(directory, index=index) as db:
            found = db.lookup(wanted)
        first = time.perf_counter() - start
        matched = sum(1 for vulns in found.values() if vulns)
        unindexed, cold, warm = [], [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            OfflineDatabase(directory).lookup(wanted)
            unindexed.append(time.perf_counter() - start)
            start = time.perf_counter()
            with OfflineDatabase(directory, index=index) as db:
                assert db.lookup(wanted) == found
                cold.append(time.perf_counter() - start)
                start = time.perf_counter()
                db.lookup(wanted)
                warm.append(time.perf_counter() - start)
    median = statistics.median(cold)
    print(f"offline: {args.packages} packages against {args.advisories} advisories")
    print(f"  vulnerable packages: {matched}")
    print(f"  first run, building the index (once per new export): {first:.3f} s")
    print(
        f"  no index (read the zips every run), median of {args.runs}: "
        f"{statistics.median(unindexed):.3f} s"
    )
    print(f"  each run with the index (open + match), median of {args.runs}: {median:.3f} s")
    print(f"  match only, already open, median of {args.runs}: {statistics.median(warm):.3f} s")
    verdict = "met" if median < TARGET_SECONDS else "NOT met"
    print(f"  target: under {TARGET_SECONDS:.1f} s per run -> {verdict}")
    online(wanted)


def online(wanted: list[PackageVersion]) -> None:
    world = OsvWorld()
    for n, package in enumerate(wanted[:50]):
        vuln_id = f"BENCH-ONLINE-{n}"
        world.advisory(
            record(n, package.ecosystem, package.name, random.Random(n)) | {"id": vuln_id}
        )
        world.match(package.ecosystem.value, package.name, package.version, vuln_id)
    with OsvFake(world) as server, OsvClient(server.base_url) as client:
        client.lookup(wanted)
        stats = client.stats
    print(f"online: {len(wanted)} packages against the loopback fake OSV API")
    print(f"  querybatch round trips: {stats.querybatch_requests} (target: at most 2)")
    print(f"  detail fetches: {stats.vuln_requests} at concurrency {client.concurrency}")


if __name__ == "__main__":
    main()
