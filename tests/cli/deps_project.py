"""A small project with vulnerable dependencies, and the OSV that knows about them.

- ``requirements.txt`` pins jinja2 2.11.2 (GHSA-g3rq-g295-4j3m, fixed in 2.11.3), which
  ``app.py`` imports: the heuristic cannot clear it, so it stays ``affected`` and is
  escalated (INCONCLUSIVE offline);
- ``web/package-lock.json`` pins lodash 4.17.20 (GHSA-35jh-r3h4-6jhm, fixed in 4.17.21)
  as a dev-only dependency: ``not_affected`` / ``component_not_present``;
- requests 2.32.3 has no advisory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.deps.osv.advisories import JINJA2, LODASH
from tests.fakes.osv import OsvWorld
from tests.gitrepo import git

SCHEMAS = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = SCHEMAS / "../shared/schemas/sarif-schema-2.1.0.json"
VEX_SCHEMA = SCHEMAS / "tests/schemas/openvex/openvex_json_schema.json"

JINJA_ID = JINJA2["id"]
LODASH_ID = LODASH["id"]


def osv_world() -> OsvWorld:
    world = OsvWorld()
    world.advisory(JINJA2)
    world.advisory(LODASH)
    world.match("PyPI", "jinja2", "2.11.2", JINJA_ID)
    world.match("npm", "lodash", "4.17.20", LODASH_ID)
    return world


def package_lock(lodash: str = "4.17.20") -> str:
    data: dict[str, Any] = {
        "name": "web",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"name": "web", "version": "1.0.0", "devDependencies": {"lodash": lodash}},
            "node_modules/lodash": {
                "version": lodash,
                "resolved": f"https://registry.npmjs.org/lodash/-/lodash-{lodash}.tgz",
                "dev": True,
            },
        },
    }
    return json.dumps(data, indent=2) + "\n"


def make_project(root: Path, *, lodash: str = "4.17.20", commit: bool = True) -> Path:
    (root / "web").mkdir(parents=True)
    (root / "requirements.txt").write_text("jinja2==2.11.2\nrequests==2.32.3\n")
    (root / "app.py").write_text(
        "import jinja2\n\n\ndef render(text):\n    return jinja2.Template(text).render()\n"
    )
    (root / "web" / "package-lock.json").write_text(package_lock(lodash))
    if commit:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
    return root


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def lodash_line(root: Path) -> int:
    lines = (root / "web" / "package-lock.json").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if '"node_modules/lodash"' in line)
