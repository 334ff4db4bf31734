"""Health probe of the upstream API, with the standard library only."""

import json
import urllib.request


def upstream_ok(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
        return json.load(response).get("status") == "ok"
