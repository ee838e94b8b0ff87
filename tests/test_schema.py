"""The committed JSON Schema is exactly what `relialint schema` prints, and every record points at it."""

from __future__ import annotations

import json

from relialint.kb.model import json_schema
from tests.cli_run import invoke
from tests.conftest import ROOT


def test_committed_schema_is_not_stale() -> None:
    committed = (ROOT / "schemas" / "record.schema.json").read_text(encoding="utf-8")
    printed = invoke(["schema"]).output
    assert committed == printed, "stale: run `relialint schema > schemas/record.schema.json`"
    assert json.loads(committed) == json_schema()


def test_every_record_starts_with_the_schema_comment() -> None:
    for path in sorted((ROOT / "records").glob("*.yaml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=../schemas/record.schema.json", path.name


def test_records_validate_against_the_json_schema() -> None:
    import jsonschema
    from ruamel.yaml import YAML

    schema = json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted((ROOT / "records").glob("*.yaml")):
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
        data = json.loads(json.dumps(data, default=str))
        errors = sorted(validator.iter_errors(data), key=str)
        assert not errors, f"{path.name}: {errors[0].message if errors else ''}"
