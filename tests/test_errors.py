"""One error base class (issue 24): every exception relialint defines derives from ``RelialintError`` and keeps the
standard base its callers catch; there is one ``UsageError``; the command line reports each error in one place."""

from __future__ import annotations

import ast
import importlib
from functools import lru_cache
from pathlib import Path

import pytest

from relialint import cli
from relialint.base import errors
from relialint.base.errors import InternalError, RelialintError, UsageError
from relialint.core import results
from relialint.run import lint
from tests.cli_run import Result, invoke
from tests.conftest import ROOT

SRC = ROOT / "src" / "relialint"
EXAMPLE = "examples/serve-cmd.sh"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=1)
def _exception_classes() -> dict[str, type[BaseException]]:
    """Every class defined at the top of a module of the package that is an exception, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "__main__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
        if not names:
            continue
        module = importlib.import_module(_module_name(path))
        for name in names:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found[f"{module.__name__}.{name}"] = cls
    return found


def test_every_exception_class_in_src_derives_from_the_base() -> None:
    found = _exception_classes()
    assert not [name for name, cls in found.items() if not issubclass(cls, RelialintError)]
    # the walk finds them (a walk that found none would pass the line above)
    assert {"relialint.run.config.ConfigError", "relialint.core.versions.VersionError",
            "relialint.base.errors.UsageError",
            "relialint.run.targets.FactsFileError", "relialint.readers.yamlsafe.YamlError",
            "relialint.base.errors.InternalError", "relialint.base.bounds._Over"} <= set(found)
    assert len(found) >= 20


def test_no_exception_class_is_defined_inside_a_function() -> None:
    """Nested classes escape the walk above: there are none that are exceptions."""
    nested = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and id(node) not in top and any(
                    isinstance(base, ast.Name) and base.id.endswith(("Error", "Exception")) for base in node.bases):
                nested.append(f"{path.name}:{node.lineno}")
    assert nested == []


@pytest.mark.parametrize(("name", "standard"), [
    ("relialint.base.bounds.BoundError", ValueError),
    ("relialint.run.config.ConfigError", ValueError),
    ("relialint.core.triggers.PredicateError", ValueError),
    ("relialint.core.facts.FactValueError", ValueError),
    ("relialint.core.hardware.UnknownGpu", LookupError),
    ("relialint.lsp.text.InvalidParams", ValueError),
    ("relialint.probe.nvml.NvmlUnavailable", RuntimeError),
    ("relialint.probe.nvsmi_xml.XmlError", ValueError),
    ("relialint.base.safewrite.RefusedTarget", OSError),
    ("relialint.site.cite.CitationError", ValueError),
    ("relialint.run.suppress.BaselineError", ValueError),
    ("relialint.core.versions.VersionError", ValueError),
    ("relialint.base.errors.UsageError", ValueError),
    ("relialint.run.targets.FactsFileError", ValueError),
])
def test_each_keeps_the_standard_base_its_callers_catch(name: str, standard: type[BaseException]) -> None:
    assert issubclass(_exception_classes()[name], standard)


def test_there_is_one_usage_error() -> None:
    assert cli.UsageError is results.UsageError is lint.UsageError is errors.UsageError
    usage = [name for name in _exception_classes() if name.endswith(".UsageError")]
    assert usage == ["relialint.base.errors.UsageError"]


def test_never_none_raises_an_internal_error() -> None:
    assert errors.never_none(0, "zero is a value") == 0
    with pytest.raises(InternalError, match=r"^the reader gives an error$"):
        errors.never_none(None, "the reader gives an error")


# -- the command line: each kind of error in one place, exit 2, no traceback ------------------------------------------


@pytest.fixture
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.mark.usefixtures("_at_root")
def test_a_bad_command_line_prints_the_usage_line_first() -> None:
    result = invoke(["facts", EXAMPLE, "--fact", "nokey"])
    assert (result.exit_code, result.stdout, result.exception) == (2, "", None)
    assert result.stderr.splitlines() == ["Usage: relialint facts [OPTIONS] PATHS...",
                                          "Try 'relialint facts -h' for help.",
                                          "relialint: error: --fact takes KEY=VALUE, not 'nokey'"]


@pytest.mark.usefixtures("_at_root")
@pytest.mark.parametrize("command", [[], ["facts"]])
def test_a_bad_value_found_while_running_is_one_line(command: list[str]) -> None:
    result = invoke([*command, EXAMPLE, "--fact", "gpu.flux=1"])
    assert (result.exit_code, result.stdout, result.exception) == (2, "", None)
    assert result.stderr == ("relialint: error: unknown fact 'gpu.flux'; see `relialint facts --help` or "
                             "docs/reference/facts.md\n")


@pytest.mark.usefixtures("_at_root")
def test_an_error_relialint_raises_on_purpose_is_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from relialint.core.versions import VersionError

    def broken(*args: object, **kwargs: object) -> None:
        raise VersionError("a version that parses in no scheme")

    monkeypatch.setattr(lint, "lint_paths", broken)
    message = "relialint: error: a version that parses in no scheme\n"
    assert invoke([EXAMPLE]) == Result(2, "", message, message, None)


@pytest.mark.usefixtures("_at_root")
def test_an_internal_error_is_reported_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise InternalError("an invariant")

    monkeypatch.setattr(lint, "lint_paths", broken)
    message = ("relialint: internal error (InternalError); nothing was reported. Please report it with the input "
               "that caused it.\n")
    assert invoke([EXAMPLE]) == Result(2, "", message, message, None)


def test_a_usage_error_is_a_value_error_for_its_old_callers() -> None:
    with pytest.raises(ValueError, match="bad"):
        raise UsageError("bad")
    assert UsageError("bad").command_line is False
    assert UsageError("bad", command_line=True).command_line is True
