"""Follows every link of the docs site with the reader's session cookie."""

import urllib3

_pool = urllib3.PoolManager()


def status_of(url: str, cookie: str) -> int:
    # urllib3 follows redirects itself here, to whatever host a page links to,
    # and the Cookie header goes along.
    response = _pool.request("GET", url, headers={"Cookie": cookie}, redirect=True)
    return response.status
