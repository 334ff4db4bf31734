"""The action's ``deps`` input: a pull request's new vulnerable dependency is triaged in
the same job, SARIF, summary and comment as its secrets, against the loopback fake OSV."""

from __future__ import annotations

import json

import jsonschema
import pytest
from tests.ci.conftest import PullRequestRepo, Tokens
from tests.ci.test_action_emulation import SCHEMA_PATH, decisions, pr_job
from tests.cli.deps_project import LODASH_ID, VEX_SCHEMA, lodash_line, osv_world, package_lock
from tests.fakes.github import GitHubFake
from tests.fakes.osv import OsvFake

USES_LODASH = "const _ = require('lodash');\nmodule.exports = (t) => _.template(t)();\n"


pytestmark = pytest.mark.slow


def test_deps_input_triages_the_dependencies_the_pull_request_adds(
    pr_repo: PullRequestRepo, github: GitHubFake, tokens: Tokens
) -> None:
    lock = json.loads(package_lock("4.17.20"))
    lock["packages"]["node_modules/lodash"].pop("dev")  # shipped, and imported below
    lock["packages"][""]["dependencies"] = lock["packages"][""].pop("devDependencies")
    pr_repo.head = pr_repo.commit(
        "use lodash",
        {"web/package-lock.json": json.dumps(lock, indent=2) + "\n", "web/index.js": USES_LODASH},
    )
    with OsvFake(osv_world()) as osv:
        job = pr_job(
            pr_repo, github, tokens.write, "deps", inputs={"deps": "true", "osv-url": osv.base_url}
        )
        asked = osv.count(r"^/v1/querybatch$")
    assert job.exit_code == 1, job.step.stderr  # the token the PR adds is still real
    assert asked == 1
    found = decisions(job)
    assert ("thresher/github-token", "app/deploy.py", 3) in found
    assert [f for f in found if f[0] == LODASH_ID] == [
        (LODASH_ID, "web/package-lock.json", lodash_line(pr_repo.root))
    ]
    if SCHEMA_PATH.is_file():
        schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
        jsonschema.validators.validator_for(schema)(schema).validate(job.sarif)
    assert "Vulnerable dependencies" in job.summary
    assert pr_repo.token not in job.summary


def test_without_the_deps_input_no_lockfile_is_sent_to_osv(
    pr_repo: PullRequestRepo, github: GitHubFake, tokens: Tokens
) -> None:
    pr_repo.head = pr_repo.commit("lock", {"web/package-lock.json": package_lock("4.17.20")})
    with OsvFake(osv_world()) as osv:
        job = pr_job(pr_repo, github, tokens.write, "nodeps", inputs={"osv-url": osv.base_url})
        assert osv.requests == []
    assert all(rule != LODASH_ID for rule, _, _ in decisions(job))
    assert "Vulnerable dependencies" not in job.summary


def test_the_vex_input_writes_openvex_of_the_dependency_decisions(
    pr_repo: PullRequestRepo, github: GitHubFake, tokens: Tokens
) -> None:
    pr_repo.head = pr_repo.commit("lock", {"web/package-lock.json": package_lock("4.17.20")})
    with OsvFake(osv_world()) as osv:
        inputs = {"deps": "true", "osv-url": osv.base_url, "vex": "out/deps.vex.json"}
        job = pr_job(pr_repo, github, tokens.write, "vex", inputs=inputs)
    assert job.outputs["vex"] == "out/deps.vex.json", job.step.stderr
    vex = json.loads((pr_repo.root / "out/deps.vex.json").read_text(encoding="utf-8"))
    schema = json.loads(VEX_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(vex)
    statements = vex["statements"]
    assert [s["vulnerability"]["name"] for s in statements] == [LODASH_ID]
    assert statements[0]["products"] == [{"@id": "pkg:npm/lodash@4.17.20"}]
    assert statements[0]["status"] in {"affected", "not_affected", "under_investigation"}
    assert pr_repo.token not in json.dumps(vex)


def test_the_vex_input_without_deps_is_a_usage_error_naming_it(
    pr_repo: PullRequestRepo, github: GitHubFake, tokens: Tokens
) -> None:
    job = pr_job(pr_repo, github, tokens.write, "vexnodeps", inputs={"vex": "deps.vex.json"})
    assert job.exit_code == 2
    assert "--vex needs --deps" in job.step.stderr
    assert not (pr_repo.root / "deps.vex.json").exists()
