"""Issue 25: a container whose launch is not in the file (no command; an image built elsewhere, a local or private
image) is a deployment only where its evidence decides the engine, and then every option is unknown, never absent."""

from __future__ import annotations

import json
from pathlib import Path

from relialint.core.deployment import Deployment
from relialint.engines.registry import default_registry
from relialint.readers.opener import MemoryOpener
from relialint.run.files import read_file
from tests.cli_run import invoke


def _deployments(text: str, kind: str = "compose", path: str = "docker-compose.yml") -> list[Deployment]:
    result = read_file(text, path, kind, MemoryOpener({}))
    return default_registry().extract(result, MemoryOpener({}), None)


def _one(text: str, kind: str = "compose", path: str = "docker-compose.yml") -> Deployment:
    found = _deployments(text, kind, path)
    assert len(found) == 1
    return found[0]


BUILT = """\
services:
  api:
    build: ./serving
    ports: ["8000:8000"]
    environment:
      VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"
"""


def test_a_build_whose_dockerfile_is_absent_is_a_deployment_told_by_a_vllm_variable() -> None:
    deployment = _one(BUILT)
    assert (deployment.engine, deployment.span.line, deployment.span.column) == ("vllm", 3, 12)
    assert deployment.unseen is not None
    name = deployment.facts.get("engine.name")
    assert name is not None and (name.line, name.column) == (6, 7)
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in (name.note or "")


def test_an_unseen_launch_leaves_every_option_and_the_image_env_unknown() -> None:
    facts = _one(BUILT).facts
    assert "flag.vllm." not in facts.closed
    assert "env." not in facts.closed
    for key in ("kv_cache.dtype", "limits.max_model_len", "flag.vllm.enforce-eager", "env.VLLM_USE_V1",
                "launch.positional_model", "args.config_false"):
        assert facts.get(key) is None, key  # unknown: no value and not known unset


def test_a_seen_launch_of_a_local_image_still_closes_its_options() -> None:
    text = BUILT.replace("    ports:", "    command: [\"--max-num-seqs\", \"64\"]\n    ports:")
    deployment = _one(text)
    assert deployment.unseen is None
    assert "flag.vllm." in deployment.facts.closed


def test_two_hints_of_different_kinds_decide_one_does_not() -> None:
    named = "services:\n  vllm:\n    image: acme/serving:1.0\n"
    assert _deployments(named) == []  # a name alone
    port = "services:\n  api:\n    image: acme/serving:1.0\n    ports: [\"8000:8000\"]\n"
    assert _deployments(port) == []  # a port alone
    both = "services:\n  vllm:\n    image: acme/serving:1.0\n    ports: [\"8000:8000\"]\n"
    deployment = _one(both)
    assert deployment.engine == "vllm" and deployment.unseen is not None
    note = deployment.facts.get("engine.name")
    assert note is not None and "the name `vllm`" in (note.note or "") and "port 8000" in (note.note or "")


def test_a_gguf_volume_and_a_llama_server_name_decide_llamacpp() -> None:
    text = ("services:\n  llama-server:\n    build: .\n    volumes:\n      - ./models/q.gguf:/models/q.gguf\n")
    deployment = _one(text)
    assert (deployment.engine, deployment.span.line) == ("llama.cpp", 3)
    assert "flag.llama.cpp." not in deployment.facts.closed


def test_clients_and_other_engines_are_not_deployments() -> None:
    router = "services:\n  vllm-router:\n    build: ./router\n    ports: [\"8000:8000\"]\n"
    assert _deployments(router) == []
    ollama = ("services:\n  ollama:\n    build: .\n    ports: [\"8080:8080\"]\n    volumes:\n"
              "      - ./m.gguf:/m.gguf\n    environment:\n      - LLAMA_ARG_CTX_SIZE=4096\n")
    assert _deployments(ollama) == []
    conflict = "services:\n  vllm:\n    build: .\n    ports: [\"8080:8080\"]\n"
    assert _deployments(conflict) == []  # a vLLM name on llama-server's port: undecided


def test_a_missing_dockerfile_is_no_warning_when_the_service_writes_no_command() -> None:
    result = read_file(BUILT, "docker-compose.yml", "compose", MemoryOpener({}))
    assert result.errors == []
    with_command = BUILT.replace("    ports:", "    command: [\"--port\", \"8000\"]\n    ports:")
    result = read_file(with_command, "docker-compose.yml", "compose", MemoryOpener({}))
    assert [(e.line, e.column, e.severity) for e in result.errors] == [(3, 12, "warning")]


K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: s
spec:
  template:
    spec:
      containers:
        - name: server
          image: registry.internal.example/ml/s:1.4.0
          env:
            - name: LLAMA_ARG_CTX_SIZE
              value: "16384"
          ports:
            - containerPort: 8080
"""


def test_a_private_kubernetes_image_with_llama_arg_variables_is_an_unseen_llamacpp_launch() -> None:
    deployment = _one(K8S, "kubernetes", "deploy.yaml")
    assert (deployment.engine, deployment.span.line, deployment.span.column) == ("llama.cpp", 10, 18)
    assert deployment.unseen is not None
    ctx = deployment.facts.get("flag.llama.cpp.ctx-size")
    assert ctx is not None and (ctx.value, ctx.origin, ctx.line) == ("16384", "env", 12)
    assert "flag.llama.cpp." not in deployment.facts.closed


def test_an_official_image_with_no_command_is_a_seen_launch() -> None:
    text = "services:\n  vllm:\n    image: vllm/vllm-openai:v0.9.2\n    environment:\n      - VLLM_USE_V1=1\n"
    deployment = _one(text)
    assert deployment.unseen is None


def test_facts_says_no_deployment_found_and_what_it_saw(tmp_path: Path) -> None:
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  ollama:\n    image: ollama/ollama:0.6.2\n  webui:\n    image: open-webui:main\n")
    text = invoke(["facts", str(compose)])
    assert text.exit_code == 0
    assert text.stdout.splitlines() == [
        "no deployment found",
        f"{compose}: no deployment: a compose file with 2 services (ollama: ollama/ollama:0.6.2, webui: "
        "open-webui:main); none runs vllm or llama.cpp or sglang"]
    doc = json.loads(invoke(["facts", "--format", "json", str(compose)]).stdout)
    assert doc["deployments"] == []
    assert doc["no_deployment"] == [{"path": str(compose), "kind": "compose", "saw": "a compose file with 2 services "
                                     "(ollama: ollama/ollama:0.6.2, webui: open-webui:main)"}]


def test_facts_says_the_launch_is_not_in_the_file(tmp_path: Path) -> None:
    import json

    compose = tmp_path / "docker-compose.yml"
    compose.write_text(BUILT)
    assert invoke(["facts", str(compose)]).stdout.splitlines()[0] == \
        f"{compose}:3: vllm (compose, launch not in the file)"
    doc = json.loads(invoke(["facts", "--format", "json", str(compose)]).stdout)
    assert doc["deployments"][0]["launch"]["seen"] is False
    assert doc["no_deployment"] == []


def test_an_unseen_launch_gets_no_definite_finding_and_shows_only_what_the_file_states(tmp_path: Path) -> None:
    compose = tmp_path / "docker-compose.yml"
    reservation = ("    deploy:\n      resources:\n        reservations:\n          devices:\n"
                   "            - driver: nvidia\n              count: 1\n              capabilities: [gpu]\n")
    compose.write_text(BUILT + reservation)
    doc = json.loads(invoke(["check", "--format", "json", "--show-possible", str(compose)]).stdout)
    assert doc["summary"]["deployments"] == 1
    findings = doc["findings"]
    assert len(findings) > 20  # every option-dependent record stays possible: unknown, not absent
    assert {f["certainty"] for f in findings} == {"possible"}
    shown = sorted(f["code"] for f in findings if f.get("shown"))
    # the NVIDIA reservation states the vendor: the only stated condition of RL217 (whose variable, unset, meets it);
    # RL235 and RL236 also need --quantization awq/gptq, which no line gives (counted); RL122 waits on FlashInfer,
    # which the reservation says nothing of (counted); the compose service is a container with no volume over the HF
    # cache (RL322) and publishes 8000:8000 on every interface (RL601): all still possible, the launch (and its
    # flags, key and host) unseen
    assert shown == ["RL217", "RL322", "RL601"]
