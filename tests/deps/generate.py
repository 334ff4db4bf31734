"""Large synthetic lockfiles, one per format, for the scale tests and benchmarks/lockfiles.py.

Package ``i`` is named ``pkg-i`` (``github.com/org/pkg-i`` for Go, ``vendor/pkg-i`` for
Composer) at version ``1.<i>.0``; half of them are dev-only where the format says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable


def requirements(n: int) -> str:
    return "".join(
        f"pkg-{i}==1.{i}.0 \\\n    --hash=sha256:{i:064x} ; python_version >= '3.8'\n"
        for i in range(n)
    )


def _toml_packages(n: int, extra: Callable[[int], str]) -> str:
    return "".join(
        f'[[package]]\nname = "pkg-{i}"\nversion = "1.{i}.0"\n{extra(i)}\n' for i in range(n)
    )


def poetry(n: int) -> str:
    return _toml_packages(n, lambda i: f'groups = ["{"dev" if i % 2 else "main"}"]\n')


def uv(n: int) -> str:
    root = "".join(f'    {{ name = "pkg-{i}" }},\n' for i in range(0, n, 2))
    return (
        'version = 1\n\n[[package]]\nname = "app"\nversion = "0.1.0"\n'
        + (f'source = {{ editable = "." }}\ndependencies = [\n{root}]\n\n')
        + _toml_packages(n, lambda _i: 'source = { registry = "https://pypi.org/simple" }\n')
    )


def cargo(n: int) -> str:
    return "version = 3\n\n" + _toml_packages(
        n, lambda _i: 'source = "registry+https://github.com/rust-lang/crates.io-index"\n'
    )


def pipfile_lock(n: int) -> str:
    half = n // 2
    default = {f"pkg-{i}": {"hashes": [], "version": f"==1.{i}.0"} for i in range(half)}
    develop = {f"pkg-{i}": {"hashes": [], "version": f"==1.{i}.0"} for i in range(half, n)}
    return json.dumps({"_meta": {}, "default": default, "develop": develop}, indent=4)


def package_lock_v3(n: int) -> str:
    packages: dict[str, object] = {"": {"dependencies": {f"pkg-{i}": "*" for i in range(0, n, 2)}}}
    for i in range(n):
        packages[f"node_modules/pkg-{i}"] = {
            "version": f"1.{i}.0",
            "resolved": f"https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.{i}.0.tgz",
            "dev": bool(i % 2),
            "dependencies": {f"pkg-{(i + 1) % n}": "*"},
        }
    return json.dumps({"lockfileVersion": 3, "requires": True, "packages": packages}, indent=2)


def package_lock_v1(n: int) -> str:
    deps = {f"pkg-{i}": {"version": f"1.{i}.0", "dev": bool(i % 2)} for i in range(n)}
    return json.dumps({"lockfileVersion": 1, "dependencies": deps}, indent=2)


def yarn_v1(n: int) -> str:
    return "# yarn lockfile v1\n\n" + "".join(
        f'"pkg-{i}@^1.{i}.0":\n  version "1.{i}.0"\n  resolved "https://r/pkg-{i}.tgz"\n\n'
        for i in range(n)
    )


def yarn_berry(n: int) -> str:
    return "__metadata:\n  version: 6\n\n" + "".join(
        f'"pkg-{i}@npm:^1.{i}.0":\n  version: 1.{i}.0\n  resolution: "pkg-{i}@npm:1.{i}.0"\n'
        "  languageName: node\n  linkType: hard\n\n"
        for i in range(n)
    )


def pnpm_v9(n: int) -> str:
    prod = "".join(f"      pkg-{i}:\n        specifier: ^1.{i}.0\n        version: 1.{i}.0\n"
                   for i in range(0, n, 2))  # fmt: skip
    dev = "".join(f"      pkg-{i}:\n        specifier: ^1.{i}.0\n        version: 1.{i}.0\n"
                  for i in range(1, n, 2))  # fmt: skip
    packages = "".join(f"  pkg-{i}@1.{i}.0:\n    resolution: {{integrity: sha512-x}}\n\n"
                       for i in range(n))  # fmt: skip
    snapshots = "".join(f"  pkg-{i}@1.{i}.0: {{}}\n\n" for i in range(n))
    return (
        f"lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n{prod}"
        f"    devDependencies:\n{dev}\npackages:\n\n{packages}snapshots:\n\n{snapshots}"
    )


def go_mod(n: int) -> str:
    lines = "".join(
        f"\tgithub.com/org/pkg-{i} v1.{i}.0{' // indirect' if i % 2 else ''}\n" for i in range(n)
    )
    return f"module example.com/app\n\ngo 1.21\n\nrequire (\n{lines})\n"


def gemfile_lock(n: int) -> str:
    specs = "".join(f"    pkg-{i} (1.{i}.0)\n      pkg-{(i + 1) % n} (>= 0)\n" for i in range(n))
    direct = "".join(f"  pkg-{i}\n" for i in range(0, n, 2))
    return f"GEM\n  remote: https://rubygems.org/\n  specs:\n{specs}\nDEPENDENCIES\n{direct}"


def composer_lock(n: int) -> str:
    half = n // 2
    entry = [{"name": f"vendor/pkg-{i}", "version": f"v1.{i}.0", "type": "library"}
             for i in range(n)]  # fmt: skip
    return json.dumps({"packages": entry[:half], "packages-dev": entry[half:]}, indent=4)


# lockfile name -> generator, for every format thresher reads
GENERATORS: dict[str, Callable[[int], str]] = {
    "requirements.txt": requirements,
    "poetry.lock": poetry,
    "Pipfile.lock": pipfile_lock,
    "uv.lock": uv,
    "package-lock.json": package_lock_v3,
    "v1/package-lock.json": package_lock_v1,
    "yarn.lock": yarn_v1,
    "berry/yarn.lock": yarn_berry,
    "pnpm-lock.yaml": pnpm_v9,
    "go.mod": go_mod,
    "Cargo.lock": cargo,
    "Gemfile.lock": gemfile_lock,
    "composer.lock": composer_lock,
}
