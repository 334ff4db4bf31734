"""The dependency options ``thresher deps``, ``scan --deps`` and ``ci --deps`` share.

Kept free of heavy imports: ``thresher --help`` reads these option declarations.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from thresher.errors import UsageError

if TYPE_CHECKING:
    from thresher.sources.dependencies import DepsOptions

DEFAULT_OSV_URL = "https://api.osv.dev"  # thresher.deps.osv.DEFAULT_URL, without httpx
OWN_DIR = ".thresher"  # the OSV details cache and the offline index live here

OSV_URL_OPTION = typer.Option(
    "--osv-url",
    metavar="URL",
    help="The OSV API (a mirror, or a test server); advisories are cached in "
    ".thresher/osv-cache.db.",
)
OSV_OFFLINE_OPTION = typer.Option(
    "--osv-offline",
    metavar="DIR",
    help="Match offline against OSV exports laid out as DIR/<Ecosystem>/all.zip "
    "(indexed in .thresher/osv-offline-index.db); nothing is sent.",
)
VEX_OPTION = typer.Option(
    "--vex", metavar="FILE", help="Write an OpenVEX document of the dependency decisions."
)


def deps_options(
    paths: tuple[Path, ...],
    diff: str | None,
    osv_url: str,
    osv_offline: Path | None,
    *,
    pull_request: bool | None = None,
    dry_run: bool = False,
) -> DepsOptions:
    """The use case's options; in a pull-request job osv-scanner.toml comes from the base."""
    from thresher.config.trust import is_pull_request
    from thresher.sources.dependencies import DepsOptions

    if osv_offline is not None and not osv_offline.is_dir():
        raise UsageError(
            f"--osv-offline {osv_offline}: not a directory",
            hint="download OSV's <Ecosystem>/all.zip exports into DIR/<Ecosystem>/all.zip",
        )
    if dry_run and osv_offline is None:
        raise UsageError(
            "--dry-run sends nothing, and the OSV API would be sent every package and version",
            hint="add --osv-offline DIR to match offline against OSV's exports",
        )
    if not osv_url.startswith(("https://", "http://")):
        raise UsageError(f"--osv-url {osv_url!r}: expected an http(s) URL")
    cwd = Path.cwd()
    cache_dir = cwd / OWN_DIR
    # The checkout may be a pull request's: a committed .thresher link must not send
    # the cache (which thresher writes) anywhere outside the working directory.
    if cache_dir.is_symlink() or (
        cache_dir.exists() and not cache_dir.resolve().is_relative_to(cwd.resolve())
    ):
        raise UsageError(
            f"{cache_dir} is a symbolic link; the OSV cache is not written through it",
            hint="remove the link, or run thresher from another directory",
        )
    if pull_request is None:
        pull_request = is_pull_request(os.environ, diff=diff)
    return DepsOptions(
        paths=paths,
        osv_url=osv_url,
        osv_offline=osv_offline.resolve() if osv_offline is not None else None,
        cache_dir=cache_dir,
        ignores_from_base=pull_request,
    )
