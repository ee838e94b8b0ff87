"""The shared delta (``engines.releases``, ``run.upgrade``): release level from the committed tables and records,
deployment level located and judged like ``check``."""

from __future__ import annotations

from pathlib import Path

from relialint.core.results import Options
from relialint.engines.registry import default_registry
from relialint.engines.releases import DefaultChange, EnvChange, OptionChange, release_delta
from relialint.run.lint import load_records
from relialint.run.upgrade import Request, record_changes, upgrade_paths
from tests.conftest import ROOT


def _vllm(text: str):  # type: ignore[no-untyped-def]
    engine = default_registry().get("vllm")
    assert engine is not None
    return engine, engine.parse_version(text)


def test_vllm_release_delta_defaults_and_pins() -> None:
    engine, old = _vllm("0.19.0")
    _, new = _vllm("0.20.0")
    delta = release_delta(engine, old, new)
    assert delta is not None and delta.checked
    assert DefaultChange("memory.gpu_utilization", 0.9, 0.92, pins=("--gpu-memory-utilization",)) in delta.defaults
    # the mirror image
    back = release_delta(engine, new, old)
    assert back is not None
    assert DefaultChange("memory.gpu_utilization", 0.92, 0.9, pins=("--gpu-memory-utilization",)) in back.defaults


def test_vllm_release_delta_options_and_env_from_the_table() -> None:
    engine, old = _vllm("0.14.1")
    _, new = _vllm("0.15.0")
    delta = release_delta(engine, old, new)
    assert delta is not None
    assert delta.variable("VLLM_ATTENTION_BACKEND") == EnvChange("VLLM_ATTENTION_BACKEND", "unread",
                                                                 replacement="--attention-backend NAME")
    back = release_delta(engine, new, old)
    assert back is not None and back.variable("VLLM_ATTENTION_BACKEND") == EnvChange("VLLM_ATTENTION_BACKEND", "read")
    refused = {o.name for o in delta.options if o.change == "refused"}
    accepted = {o.name for o in back.options if o.change == "accepted"}
    assert refused == accepted and all(isinstance(o, OptionChange) for o in delta.options)


def test_a_version_outside_the_tables_is_not_checked() -> None:
    engine, old = _vllm("0.19.0")
    _, new = _vllm("0.99.0")
    delta = release_delta(engine, old, new)
    assert delta is not None and not delta.checked
    assert delta.options == () and delta.defaults == ()
    assert delta.unchecked == "vLLM 0.99.0 is outside relialint's option tables (0.6.6.post1-0.33.0)"


def test_records_whose_affected_range_a_version_enters_or_leaves() -> None:
    records, _ = load_records(Options())
    _, old = _vllm("0.18.1")
    _, new = _vllm("0.19.0")
    changes = {(c.code, c.change, c.certain) for c in record_changes(records, "vllm", old, new)}
    assert ("RL101", "left", True) in changes  # RL101: introduced 0.9.0, fixed 0.19.0
    mirror = {(c.code, c.change, c.certain) for c in record_changes(records, "vllm", new, old)}
    assert ("RL101", "entered", True) in mirror


def test_a_deployment_upgrade_is_located_and_certain(tmp_path: Path) -> None:
    path = tmp_path / "serve.sh"
    path.write_text("vllm serve Qwen/Qwen3-8B --max-model-len 8192\n", encoding="utf-8")
    run = upgrade_paths([str(path)], Options(), Request("0.20.0", "0.19.0"))
    assert run.errors == []
    [upgrade] = run.deployments
    assert (upgrade.old.text(), upgrade.old.origin, upgrade.new.text(), upgrade.new.origin) == (
        "0.19.0", "--from", "0.20.0", "--to")
    default = [i for i in upgrade.items if i.kind == "default" and i.subject == "memory.gpu_utilization"]
    assert [(i.change, i.certainty, i.line, i.column) for i in default] == [("changed", "definite", 1, 1)]


def test_a_pre_release_between_two_tables_takes_both() -> None:
    engine, old = _vllm("0.16.0")
    _, new = _vllm("0.17.0rc1")
    delta = release_delta(engine, old, new)
    assert delta is not None and delta.checked
    assert delta.worlds == ("vLLM 0.17.0rc1 lies between the tabled 0.16.0 and 0.17.0: a change in one of them only "
                            "is possible")
    # --disable-log-requests: tabled 0.6.6.post1-0.16.0 and 0.33.0, so refused by 0.17.0 and accepted by 0.16.0
    change = delta.option("--disable-log-requests")
    assert change is not None and (change.change, change.certain) == ("refused", False)


def test_a_llama_cpp_build_between_tables_takes_each_it_can_be() -> None:
    engine = default_registry().get("llama.cpp")
    assert engine is not None
    delta = release_delta(engine, engine.parse_version("b4579"), engine.parse_version("b6000"))
    assert delta is not None and delta.checked
    assert delta.worlds == "llama.cpp b6000 can be the table of b5904-@4227c9be4: a change in some of them only is " \
                           "possible"
    dump = delta.option("--dump-kv-cache")  # in b4579; in neither table b6000 can be
    assert dump is not None and (dump.change, dump.certain) == ("refused", True)
    assert delta.option("--no-mmap") is None  # every table up to b10454 has it


def test_the_version_today_unknown_gives_possible_items(tmp_path: Path) -> None:
    path = tmp_path / "serve.sh"
    path.write_text("vllm serve m --disable-log-requests --max-model-len 4096\n", encoding="utf-8")
    run = upgrade_paths([str(path)], Options(isolated=True), Request("0.23.0"))
    [upgrade] = run.deployments
    assert (upgrade.old.version, upgrade.old.origin) == (None, None)
    assert upgrade.notes == ["the vLLM version it runs today is unknown (give --from VERSION): what depends on it is "
                             "possible"]
    option = [i for i in upgrade.items if i.kind == "option"]
    assert [(i.change, i.subject, i.certainty, i.line, i.column, i.missing_facts) for i in option] == [
        ("refused", "--disable-log-requests", "possible", 1, 14, ("engine.version",))]
    assert option[0].message.startswith("accepted by some of vLLM 0.6.6.post1-0.16.0, 0.33.0 (the version today is "
                                         "unknown), refused by vLLM 0.23.0: the engine will not start")
    [memory] = [i for i in upgrade.items if i.subject == "memory.gpu_utilization"]
    assert (memory.certainty, memory.missing_facts, memory.message) == (
        "possible", ("engine.version",), "0.92 in vLLM 0.23.0, another value in some of vLLM 0.6.6.post1-0.16.0, "
        "0.33.0 (the version today is unknown) (possible: depends on engine.version)")
    entered = [(i.subject, i.certainty, i.line, i.column) for i in upgrade.items if i.change == "entered"]
    assert ("RL507", "possible", 1, 14) in entered
    assert all(certainty == "possible" for _, certainty, _, _ in entered)


def test_llama_cpp_items_are_located_at_their_words(tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text('services:\n  llama:\n    image: ghcr.io/ggml-org/llama.cpp:server-b4579\n'
                       '    command: ["-m", "/models/m.gguf", "--no-mmap", "-fa"]\n'
                       '    environment:\n      LLAMA_ARG_NO_WEBUI: "1"\n', encoding="utf-8")
    run = upgrade_paths([str(compose)], Options(isolated=True), Request("b11312"))
    [upgrade] = run.deployments
    table = [(i.kind, i.change, i.subject, i.certainty, i.line, i.column) for i in upgrade.items if i.kind != "record"]
    assert table == [("option", "refused", "--no-mmap", "definite", 4, 39),
                     ("option", "changed", "-fa", "definite", 4, 52),
                     ("env", "unread", "LLAMA_ARG_NO_WEBUI", "definite", 6, 7)]
    assert [(i.change, i.subject) for i in upgrade.items if i.kind == "record"] == [
        ("entered", "RL339"),  # no --ctx-size: --fit sizes the context from b8502
        ("entered", "RL520"), ("entered", "RL506"), ("entered", "RL527"),
        ("left", "RL346"),  # b4579 runs one slot without -np; b11312 defaults to 4 (RL346)
        ("left", "RL141"), ("left", "RL335"),  # context shift up to b6111; fixed 4096 context on b4094-b8501
        ("kept", "RL245"), ("kept", "RL519")]  # possible: the container's CPU quota, build options
    assert run.failing == 3


def test_items_from_an_env_file_are_located_there(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text('services:\n  llm:\n    image: vllm/vllm-openai:v0.14.1\n'
                                           '    command: ["Qwen/Qwen3-8B"]\n    env_file: [.env]\n', encoding="utf-8")
    (tmp_path / ".env").write_text("VLLM_ATTENTION_BACKEND=FLASH_ATTN\n", encoding="utf-8")
    run = upgrade_paths([str(tmp_path / "compose.yaml")], Options(isolated=True), Request("0.15.0"))
    [upgrade] = run.deployments
    env = str(tmp_path / ".env")
    assert [(i.kind, i.change, i.subject, i.certainty, i.path, i.line, i.column) for i in upgrade.items
            if i.path == env] == [
        ("record", "entered", "RL504", "definite", env, 1, 1),
        ("env", "unread", "VLLM_ATTENTION_BACKEND", "definite", env, 1, 1)]
    [unread] = [i for i in upgrade.items if i.kind == "env"]
    assert unread.message == ("read by vLLM 0.14.1, not by vLLM 0.15.0: setting it does nothing there; use "
                              "`--attention-backend NAME` instead")


def test_a_value_the_target_refuses() -> None:
    """``--speculative-config`` method ``mtp``: accepted from vLLM 0.11.0 (``flagcheck.VALUE_SINCE``)."""
    engine, old = _vllm("0.30.0")
    _, new = _vllm("0.10.0")
    delta = release_delta(engine, old, new)
    assert delta is not None
    assert [(v.option, v.value, v.change, v.since) for v in delta.values if v.value == "mtp"] == [
        ("--speculative-config", "mtp", "refused", "0.11.0")]
    run = upgrade_paths([str(ROOT / "examples" / "compose.yaml")], Options(), Request("0.10.0"))
    values = [(i.change, i.subject, i.certainty, i.line, i.column, i.message) for d in run.deployments
              for i in d.items if i.kind == "option"]
    assert values == [("refused", "--speculative-config mtp", "definite", 15, 7,
                       "`mtp` is accepted by vLLM 0.30.0, refused by vLLM 0.10.0 (accepted from 0.11.0): the engine "
                       "will not start")]
