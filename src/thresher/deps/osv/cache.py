"""The OSV details cache: one row per advisory id, valid while ``modified`` matches.

``querybatch`` returns each match's id and ``modified`` time, so a detail already
fetched at that revision is never fetched again, and a revised advisory always is.
The file is the caller's (``.thresher/osv-cache.db``), shared across runs; WAL lets a
concurrent run read while this one writes. Stored as our own model's JSON, so a row
never needs re-parsing from OSV's shape.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Self

from pydantic import ValidationError

from thresher.deps.model import Vulnerability
from thresher.deps.osv.records import OsvError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS osv_vulns (
    id TEXT PRIMARY KEY,
    modified TEXT NOT NULL,
    record TEXT NOT NULL
)
"""


class OsvCache:
    """SQLite-backed; use from one thread (the client stores after its workers join)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise OsvError(
                f"cannot open the OSV cache {path}: {exc}",
                hint="delete the file to rebuild it, or point the cache elsewhere",
            ) from exc

    def get(self, vuln_id: str, modified: str) -> Vulnerability | None:
        """The cached record if it is at revision ``modified``, else ``None``."""
        row = self._db.execute(
            "SELECT modified, record FROM osv_vulns WHERE id = ?", (vuln_id,)
        ).fetchone()
        if row is None or not _same_instant(row[0], modified):
            return None
        try:
            return Vulnerability.model_validate_json(row[1])
        except ValidationError:
            return None  # written by another thresher version: fetch it again

    def put(self, vulnerability: Vulnerability) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO osv_vulns (id, modified, record) VALUES (?, ?, ?)",
            (
                vulnerability.id,
                vulnerability.modified.isoformat(),
                vulnerability.model_dump_json(),
            ),
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _same_instant(stored: str, modified: str) -> bool:
    try:
        return datetime.fromisoformat(stored) == datetime.fromisoformat(modified)
    except ValueError:
        return stored == modified
