"""A persistent index of OSV exports, so each offline run reads only what it asks about.

Opening a 20,000-member ``all.zip`` and decoding every member costs seconds; a run
with a 2,000-package lockfile needs a few thousand of those records. The index is a
SQLite file the caller names (``.thresher/osv-offline-index.db``) holding, per
ecosystem, every advisory already parsed into our model, keyed by normalised package
name, and the export's signature (size and modification time): a new export is
re-indexed on first use, an unchanged one is read by name with one query a package.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from thresher.deps.model import Ecosystem, Vulnerability
from thresher.deps.osv.records import OsvError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS exports (ecosystem TEXT PRIMARY KEY, signature TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    ecosystem TEXT NOT NULL,
    name_key TEXT NOT NULL,
    id TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_name ON records (ecosystem, name_key);
"""


class ExportIndex:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise OsvError(
                f"cannot open the offline OSV index {path}: {exc}",
                hint="delete the file to rebuild it, or point the index elsewhere",
            ) from exc

    def current(self, ecosystem: Ecosystem, signature: str) -> bool:
        row = self._db.execute(
            "SELECT signature FROM exports WHERE ecosystem = ?", (ecosystem.value,)
        ).fetchone()
        return row is not None and row[0] == signature

    def replace(
        self,
        ecosystem: Ecosystem,
        signature: str,
        entries: list[tuple[str, Vulnerability]],
    ) -> None:
        """Swap in a new export's records (``(name_key, vulnerability)`` pairs) at once."""
        with self._db:
            self._db.execute("DELETE FROM records WHERE ecosystem = ?", (ecosystem.value,))
            self._db.executemany(
                "INSERT INTO records (ecosystem, name_key, id, record) VALUES (?, ?, ?, ?)",
                ((ecosystem.value, key, vuln.id, vuln.model_dump_json()) for key, vuln in entries),
            )
            self._db.execute(
                "INSERT OR REPLACE INTO exports (ecosystem, signature) VALUES (?, ?)",
                (ecosystem.value, signature),
            )

    def records(self, ecosystem: Ecosystem, name_key: str) -> list[Vulnerability]:
        rows = self._db.execute(
            "SELECT record FROM records WHERE ecosystem = ? AND name_key = ?",
            (ecosystem.value, name_key),
        ).fetchall()
        return [Vulnerability.model_validate_json(row[0]) for row in rows]

    def close(self) -> None:
        self._db.close()
