"""Fetches partner feeds through the corporate proxy (credentials in the proxy URL)."""

import os

import requests


def fetch_feed(url: str) -> bytes:
    proxy = os.environ["CORP_PROXY_URL"]  # http://<user>:<password>@proxy.internal:3128
    session = requests.Session()
    # Redirects are followed (the default): a feed moved to another https host gets the
    # Proxy-Authorization header.
    response = session.get(url, proxies={"https": proxy, "http": proxy}, timeout=30)
    response.raise_for_status()
    return response.content
