"""Build the demo workspace: the committed look-alikes plus fresh fake secrets.

``python examples/generate.py DEST`` copies ``examples/workspace/`` to DEST, writes
well-formed but random (never live) secrets beside them, and commits the result
into a new git repository in DEST, so history analysis has something to read.
The secrets are generated on each machine instead of committed, so this
repository never holds a real-looking credential. ``--seed N`` draws them from a
seeded generator instead, for a test that must see the same workspace every time.
"""

from __future__ import annotations

import random
import secrets
import shutil
import string
import subprocess
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ALPHABET = string.ascii_letters + string.digits
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


def base62(number: int) -> str:
    digits = ""
    while number:
        number, remainder = divmod(number, 62)
        digits = BASE62[remainder] + digits
    return digits.rjust(6, "0")


# Where the secrets' characters come from (``--seed`` replaces it, once, in ``main``).
_DRAW = {"choice": secrets.choice}


def random_text(length: int, alphabet: str = ALPHABET) -> str:
    choice = _DRAW["choice"]
    return "".join(choice(alphabet) for _ in range(length))


def github_token(*, valid: bool = True) -> str:
    body = random_text(30)
    checksum = base62(zlib.crc32(body.encode()) & 0xFFFFFFFF)
    if not valid:
        checksum = checksum[:-1] + ("A" if checksum[-1] != "A" else "B")
    return f"ghp_{body}{checksum}"


def git(dest: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=thresher demo", "-c", "user.email=demo@example.com", *args],
        cwd=dest,
        check=True,
        capture_output=True,
    )


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 3 and args[1] == "--seed" and args[2].isdigit():
        _DRAW["choice"] = random.Random(int(args[2])).choice  # noqa: S311 - a test's fixture
        args = args[:1]
    if len(args) != 1:
        print("usage: python examples/generate.py DEST [--seed N]", file=sys.stderr)
        return 2
    dest = Path(args[0]).resolve()
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(HERE / "workspace", dest)
    slack = (
        f"xoxb-{random_text(12, string.digits)}-{random_text(13, string.digits)}-{random_text(24)}"
    )
    stripe = f"sk_live_{random_text(24)}"
    files = {
        "app/deploy_settings.py": f'''"""Deployment settings for the release job."""

GITHUB_API = "https://api.github.com"
GITHUB_TOKEN = "{github_token()}"
''',
        "app/notify.py": f'''import requests

SLACK_BOT_TOKEN = "{slack}"
STRIPE_SECRET_KEY = "{stripe}"


def notify(text):
    requests.post("https://slack.com/api/chat.postMessage",
                  headers={{"Authorization": f"Bearer {{SLACK_BOT_TOKEN}}"}},
                  json={{"channel": "#deploys", "text": text}})
''',
        "tests/fixtures/test_github_client.py": f'''from app.client import GitHubClient

FAKE_TOKEN = "{github_token(valid=False)}"


def test_client_sends_token():
    client = GitHubClient(token=FAKE_TOKEN)
    assert client.headers["Authorization"].endswith(FAKE_TOKEN[-4:])
''',
    }
    for relative, text in files.items():
        path = dest / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if shutil.which("git"):
        git(dest, "init", "-q")
        git(dest, "add", ".")
        git(dest, "commit", "-q", "-m", "Initial import of the demo service")
    print(f"demo workspace written to {dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
