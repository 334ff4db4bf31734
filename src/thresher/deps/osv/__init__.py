"""OSV: the online API client, the offline export reader, and the project's ignores.

Both ``OsvClient`` and ``OfflineDatabase`` answer ``lookup(packages)`` with every
package's vulnerabilities, so the caller picks one by flag and codes against neither.
"""

from thresher.deps.osv.cache import OsvCache
from thresher.deps.osv.client import DEFAULT_URL, OsvClient, OsvStats
from thresher.deps.osv.ignores import IgnoredVuln, Ignores, load_ignores
from thresher.deps.osv.offline import OfflineDatabase
from thresher.deps.osv.records import OsvError, PackageVersion, VulnRef, parse_record

__all__ = [
    "DEFAULT_URL",
    "IgnoredVuln",
    "Ignores",
    "OfflineDatabase",
    "OsvCache",
    "OsvClient",
    "OsvError",
    "OsvStats",
    "PackageVersion",
    "VulnRef",
    "load_ignores",
    "parse_record",
]
