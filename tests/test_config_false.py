"""args.config_false: the first `false` key of a vLLM --config YAML, located at the key (RL540)."""

from __future__ import annotations

from pathlib import Path

from relialint.readers.detect import yaml_kind
from relialint.run.lint import Options, lint_paths


def facts(path: Path) -> dict[str, tuple[str | None, str, int | None, int | None]]:
    result = lint_paths([str(path)], Options())
    (d,) = result.deployments
    out = {}
    for key in ("args.config_false", "prefix_caching.enabled"):
        f = d.facts.get(key)
        if f is not None:
            out[key] = (None if f.value is None else str(f.value), f.origin, f.line, f.column)
    return out


def test_false_key_in_a_config_file_the_script_writes(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("cat > cfg.yaml <<EOF\nmodel: Qwen/Qwen3-8B\nenforce-eager: true\n"
                      "enable-prefix-caching: false\nEOF\nvllm serve --config cfg.yaml\n")
    assert facts(script)["args.config_false"] == ("enable-prefix-caching", "config-file", 4, 1)


def test_no_config_means_known_unset_and_a_missing_file_unknown(tmp_path: Path) -> None:
    plain = tmp_path / "plain.sh"
    plain.write_text("vllm serve Qwen/Qwen3-8B --no-enable-prefix-caching\n")
    assert facts(plain)["args.config_false"] == (None, "inferred", None, None)
    missing = tmp_path / "missing.sh"
    missing.write_text("vllm serve --config /etc/vllm/absent.yaml\n")
    assert "args.config_false" not in facts(missing)


def test_store_boolean_dest_spelling_is_passed_on_so_not_reported(tmp_path: Path) -> None:
    config = tmp_path / "vllm-config.yaml"
    config.write_text("model: Qwen/Qwen3-8B\nenable_chunked_prefill: false\ntensor-parallel-size: 2\n")
    assert facts(config)["args.config_false"] == (None, "inferred", None, None)
    config.write_text("model: Qwen/Qwen3-8B\nenable_chunked_prefill: false\ndisable-log-stats: false\n")
    assert facts(config)["args.config_false"] == ("disable-log-stats", "config-file", 3, 1)


def test_helm_values_detected_by_shape() -> None:
    assert yaml_kind("image:\n  repository: x\n  command: [vllm, serve]\ngpuModels: [a]\n") == "helm"
    assert yaml_kind("image:\n  repository: x\nllama:\n  args:\n    ctx-size: 1\n") == "helm"
    assert yaml_kind("image:\n  repository: x\nextraArgs:\n  - --max-model-len\n  - '8192'\n") == "helm"
    assert yaml_kind("image:\n  repository: x\nargs: ['--port', '80']\n") == "helm"
    # an args list without options, or options without an image, is not a chart's server arguments
    assert yaml_kind("image:\n  repository: x\nargs:\n  - serve\n") is None
    assert yaml_kind("repos:\n  - repo: r\n    hooks:\n      - id: ruff\n        args: [--fix]\n") is None


def test_a_version_pinned_in_the_file_drops_the_false_before_the_parser(tmp_path: Path) -> None:
    body = ("cat > cfg.yaml <<EOF\nmodel: Qwen/Qwen3-8B\nenable-prefix-caching: false\nEOF\n"
            "vllm serve --config cfg.yaml\n")
    old = tmp_path / "old.sh"
    old.write_text("pip install vllm==0.10.2\n" + body)  # V1 on every GPU (0.10.0 runs V0 below CC 8.0)
    result = lint_paths([str(old)], Options())
    (d,) = result.deployments
    assert facts(old) == {"args.config_false": ("enable-prefix-caching", "config-file", 4, 1),
                          "prefix_caching.enabled": ("True", "default", None, None)}
    assert d.notes == ["enable-prefix-caching: false in the --config file is dropped by this vLLM version "
                       "(before 0.28.0): the option keeps its default"]
    new = tmp_path / "new.sh"
    new.write_text("pip install vllm==0.28.0\n" + body)
    assert facts(new)["prefix_caching.enabled"] == ("False", "config-file", 4, 1)


def test_an_equals_form_config_is_never_read_so_nothing_is_dropped(tmp_path: Path) -> None:
    (tmp_path / "serve.yaml").write_text("enforce-eager: false\n")
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve Qwen/Qwen3-8B --config=serve.yaml\n")  # RL501: vLLM never expands it
    assert facts(script)["args.config_false"] == (None, "inferred", None, None)
