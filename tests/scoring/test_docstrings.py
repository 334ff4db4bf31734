"""A Python docstring is documentation: a credentials-file sample shown to a plugin's
users in its module docstring is never deployable text (issue 25)."""

from __future__ import annotations

import random
import string
from pathlib import Path

from thresher.scoring.docstrings import docstring_lines, python_source
from thresher.scoring.features import CandidateContext, features
from thresher.scoring.lines import LineReader
from thresher.scoring.placement import PLACEMENT_FEATURES, Placement, placement


def _token(seed: int) -> str:
    return "".join(random.Random(seed).choices(string.ascii_letters + string.digits, k=40))


def _plugin(token: str) -> str:
    return (
        '"""The DNS plugin.\n'
        "\n"
        ".. code-block:: ini\n"
        "   :caption: Example credentials file:\n"
        "\n"
        f"   dns_example_api_token = {token}\n"
        '"""\n'
        "import os\n"
        "\n"
        "\n"
        "class Authenticator:\n"
        "    '''Reads the token.\n"
        "\n"
        f"    token = {token}\n"
        "    '''\n"
        "\n"
        "    def run(self):\n"
        '        """One line."""\n'
        f'        TEMPLATE = """api_token = {token}"""\n'
        f'        return "{token}"\n'
    )


def test_module_class_and_function_docstrings_are_found() -> None:
    lines = _plugin(_token(1)).split("\n")
    found = docstring_lines(lines)
    assert {1, 6, 7} <= found  # the module docstring, from its opening to its closing quotes
    assert {12, 14, 15} <= found  # the class docstring
    assert 18 in found  # the method's one-line docstring
    assert 8 not in found and 11 not in found


def test_other_triple_quoted_strings_and_code_are_not_docstrings() -> None:
    """A template a program writes out may hold a deployed value: only docstrings count."""
    lines = _plugin(_token(2)).split("\n")
    found = docstring_lines(lines)
    assert 19 not in found  # TEMPLATE = """..."""
    assert 20 not in found  # return "..."


def test_a_file_that_does_not_parse_has_no_docstrings() -> None:
    assert docstring_lines(['"""open', "password = x"]) == frozenset()
    assert docstring_lines(["def f(:", '    """doc"""']) == frozenset()
    assert docstring_lines(["x = " + "(" * 5000 + ")" * 5000]) == frozenset()  # too deep
    assert docstring_lines(["a = 1\x00"]) == frozenset()


def test_only_python_files_are_read_for_docstrings(tmp_path: Path) -> None:
    token = _token(3)
    (tmp_path / "plugin.py").write_text(_plugin(token))
    (tmp_path / "plugin.txt").write_text(_plugin(token))
    reader = LineReader(tmp_path)
    assert python_source("pkg/plugin.py") and python_source("stubs/x.pyi")
    assert reader.in_docstring("plugin.py", 6)
    assert not reader.in_docstring("plugin.py", 20)
    assert not reader.in_docstring("plugin.txt", 6)
    assert not reader.in_docstring("missing.py", 6)


def test_a_docstring_line_scanned_from_other_text_is_not_read_from_disk(tmp_path: Path) -> None:
    """A diff scan reads git blobs: where the working tree differs, there is no context."""
    token = _token(4)
    (tmp_path / "plugin.py").write_text(_plugin(token))
    reader = LineReader(tmp_path, {("plugin.py", 6): f"API_TOKEN = '{_token(5)}'"})
    assert not reader.in_docstring("plugin.py", 6)


def test_a_docstring_is_documentation_unless_the_value_is_deployed_elsewhere() -> None:
    line = f"   dns_example_api_token = {_token(6)}"
    assert placement("plugin.py", line, 26, docstring=True) is Placement.DOCUMENTATION
    assert placement("plugin.py", line, 26) is Placement.DEPLOYMENT
    assert (
        placement("plugin.py", line, 26, docstring=True, deployed_elsewhere=True)
        is Placement.DEPLOYMENT
    )
    assert placement("vendor/x/plugin.py", line, 26, docstring=True) is Placement.VENDORED


def test_the_features_carry_the_docstring_placement() -> None:
    token = _token(7)
    ctx = CandidateContext(
        value=token,
        rule_id="generic-token",
        path="plugin/__init__.py",
        line=f"   dns_example_api_token = {token}",
        in_docstring=True,
    )
    assert features(ctx)[PLACEMENT_FEATURES[Placement.DOCUMENTATION]] == 1.0
    deployed = CandidateContext(value=token, rule_id="generic-token", path=ctx.path, line=ctx.line)
    assert PLACEMENT_FEATURES[Placement.DOCUMENTATION] not in features(deployed)


def test_docstrings_of_definitions_nested_in_any_statement_are_found() -> None:
    """The walk descends through statement bodies only: a ``def`` under ``if``, ``try``,
    ``with``, a loop or ``match`` still has its docstring found, as ``ast.walk`` found it."""
    source = (
        "if True:\n"  # 1
        "    def a():\n"
        '        """in if"""\n'  # 3
        "else:\n"
        "    class B:\n"
        '        """in else"""\n'  # 6
        "try:\n"
        "    pass\n"
        "except Exception:\n"
        "    def c():\n"
        '        """in except"""\n'  # 11
        "finally:\n"
        "    def d():\n"
        '        """in finally"""\n'  # 14
        "for x in y:\n"
        "    with z:\n"
        "        async def e():\n"
        '            """in with"""\n'  # 18
        "match v:\n"
        "    case 1:\n"
        "        def f():\n"
        '            """in case"""\n'  # 22
        'g = lambda: """not a docstring"""\n'  # 23
    )
    assert docstring_lines(source.split("\n")) == frozenset({3, 6, 11, 14, 18, 22})
