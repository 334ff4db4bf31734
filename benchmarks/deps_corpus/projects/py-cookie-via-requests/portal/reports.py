"""Downloads monthly reports; the portal wants its session cookie on every request."""

import requests


def monthly_report(base_url: str, session_cookie: str, month: str) -> bytes:
    # requests follows redirects itself (it calls urllib3 with redirect=False) and drops
    # a hand-set Cookie header before following one (sessions.resolve_redirects).
    response = requests.get(
        f"{base_url}/reports/{month}",
        headers={"Cookie": f"portal_session={session_cookie}"},
        timeout=60,
    )
    response.raise_for_status()
    return response.content
