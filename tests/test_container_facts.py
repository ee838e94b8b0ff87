"""Issue 27's derived facts: the server's threads, slots, address and API key (``llama.threads``,
``llama.parallel``, ``serve.host``, ``serve.api_key``) and the container the launch runs in (``container.*``), each
with exact value, origin, line and column, as `relialint facts` shows them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_run import invoke_on_file

Row = tuple[Any, str, int | None, int | None]
PREFIXES = ("container.", "serve.host", "serve.api_key", "llama.threads", "llama.parallel", "lora.")


def facts(tmp_path: Path, name: str, text: str) -> list[dict[str, Row]]:
    """Every deployment of the file as {key: (value, origin, line, column)} for this issue's keys."""
    result = invoke_on_file(tmp_path, name, text, ["facts", name, "--format", "json"])
    doc = json.loads(result.output)
    return [{k: (v["value"], v["origin"], v.get("line"), v.get("column")) for k, v in dep["facts"].items()
             if k.startswith(PREFIXES)} for dep in doc["deployments"]]


def only(tmp_path: Path, name: str, text: str) -> dict[str, Row]:
    (deployment,) = facts(tmp_path, name, text)
    return deployment


# -- P1: threads, slots, host, API key ------------------------------------------------------------------------------


def test_llama_threads_parallel_host_from_flags(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "llama-server -m /m/q.gguf -t 8 -np 4 --host 0.0.0.0 --api-key-file /k\n")
    assert d == {"llama.threads": (8, "flag", 1, 27), "llama.parallel": (4, "flag", 1, 32),
                 "serve.host": ("0.0.0.0", "flag", 1, 38), "serve.api_key": (True, "flag", 1, 53)}


def test_llama_from_env_file(tmp_path: Path) -> None:
    (tmp_path / "llama.env").write_text("LLAMA_ARG_THREADS=6\nLLAMA_ARG_N_PARALLEL=2\nLLAMA_ARG_HOST=127.0.0.1\n"
                                        "LLAMA_API_KEY=\n")
    d = only(tmp_path, "serve.sh", "docker run --env-file llama.env ghcr.io/ggml-org/llama.cpp:server-b6000 "
                                   "-m /m/q.gguf\n")
    assert d["llama.threads"] == (6, "env", 1, 1)
    assert d["llama.parallel"] == (2, "env", 2, 1)
    assert d["serve.host"] == ("127.0.0.1", "env", 3, 1)
    # LLAMA_API_KEY set to nothing asks for no key; the environment and options are all known
    assert d["serve.api_key"] == (False, "default", 1, 33)  # at the launch (the image)


def test_llama_no_key_and_unknown_key(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "llama-server -m /m/q.gguf --port 8080\n")
    assert d["serve.host"] == (None, "default", 1, 1)  # known unset: no default is assumed
    assert d["serve.api_key"] == (False, "default", 1, 1)  # the script's environment is the one it shows
    d = only(tmp_path, "serve.sh", "llama-server -m /m/q.gguf --api-key \"$KEY\"\n")
    assert "serve.api_key" not in d  # written, from a value the file does not give


def test_vllm_host_and_key(tmp_path: Path) -> None:
    compose = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.10.0
    command: --model org/m --host 0.0.0.0 --api-key "$${KEY}"
    environment:
      HF_TOKEN: x
"""
    d = only(tmp_path, "compose.yaml", compose)
    assert d["serve.host"] == ("0.0.0.0", "flag", 4, 28)
    assert d["serve.api_key"] == (True, "flag", 4, 43)
    open_key = compose.replace(' --api-key "$${KEY}"', "")
    d = only(tmp_path, "compose.yaml", open_key)
    assert d["serve.api_key"] == (False, "default", 3, 12)  # no option, VLLM_API_KEY known unset
    d = only(tmp_path, "compose.yaml", open_key + "      VLLM_API_KEY: s3cret\n")
    assert d["serve.api_key"] == (True, "env", 7, 7)
    d = only(tmp_path, "compose.yaml", open_key + "      VLLM_API_KEY: \"\"\n")
    assert d["serve.api_key"] == (False, "default", 3, 12)  # empty: no key


def test_host_unset_and_unknown(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "vllm serve org/m --port 8000\n")
    assert d["serve.host"] == (None, "default", 1, 1)
    d = only(tmp_path, "serve.sh", "vllm serve org/m $EXTRA_ARGS\n")
    assert "serve.host" not in d  # options spliced from a variable: --host may be among them
    d = only(tmp_path, "serve.sh", "vllm serve org/m --host \"$HOST\"\n")
    assert "serve.host" not in d
    compose = "services:\n  llama:\n    image: ghcr.io/ggml-org/llama.cpp:server\n    command: -m /m/q.gguf\n"
    d = only(tmp_path, "compose.yaml", compose)
    assert d["serve.host"] == (None, "default", 3, 12)
    d = only(tmp_path, "compose.yaml", compose + "    env_file: missing.env\n")
    assert "serve.host" not in d  # LLAMA_ARG_HOST may be in the file that is not there


def test_kubernetes_key_from_secret(tmp_path: Path) -> None:
    manifest = """\
apiVersion: v1
kind: Pod
metadata: {name: v}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.10.0
      args: ["--model", "org/m"]
      env:
        - name: VLLM_API_KEY
          valueFrom:
            secretKeyRef: {name: s, key: k}
"""
    d = only(tmp_path, "pod.yaml", manifest)
    assert d["serve.api_key"] == (True, "env", 10, 17)
    assert d["container.kind"] == ("kubernetes", "manifest", 6, 13)


def test_sglang_host_and_key(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "python -m sglang.launch_server --model-path org/m --host 0.0.0.0 --api-key k\n")
    assert d["serve.host"] == ("0.0.0.0", "flag", 1, 51)
    assert d["serve.api_key"] == (True, "flag", 1, 66)


def test_container_kind_and_cpu_limit(tmp_path: Path) -> None:
    compose = """\
services:
  llama:
    image: ghcr.io/ggml-org/llama.cpp:server
    command: -m /models/q.gguf -t 16
    cpus: "4"
    deploy:
      resources:
        limits:
          cpus: '1.5'
"""
    d = only(tmp_path, "compose.yaml", compose)
    assert d["container.kind"] == ("compose", "manifest", 2, 3)
    assert d["container.cpu_limit"] == (1.5, "manifest", 9, 17)  # deploy.resources.limits wins
    d = only(tmp_path, "serve.sh", "docker run --cpus=2 vllm/vllm-openai:v0.10.0 --model org/m\n")
    assert d["container.kind"] == ("docker", "manifest", 1, 1)
    assert d["container.cpu_limit"] == (2.0, "manifest", 1, 12)
    d = only(tmp_path, "serve.sh", "podman run --cpus \"$N\" vllm/vllm-openai:v0.10.0 --model org/m\n")
    assert "container.cpu_limit" not in d  # the value is not in the file
    manifest = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: v}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          args: ["--model", "org/m"]
          resources:
            requests: {cpu: "8"}
            limits:
              cpu: 1500m
"""
    d = only(tmp_path, "deploy.yaml", manifest)
    assert d["container.kind"] == ("kubernetes", "manifest", 8, 17)
    assert d["container.cpu_limit"] == (1.5, "manifest", 14, 20)
    d = only(tmp_path, "deploy.yaml", manifest.replace("              cpu: 1500m\n", "              memory: 8Gi\n"))
    assert "container.cpu_limit" not in d  # only limits count, never requests
    d = only(tmp_path, "serve.sh", "vllm serve org/m --host 127.0.0.1\n")
    assert not any(k.startswith("container.") for k in d)  # no container


def test_helm_values_are_kubernetes_and_never_false(tmp_path: Path) -> None:
    values = """\
image:
  repository: vllm/vllm-openai
  tag: v0.10.0
  command: ["vllm", "serve", "org/m"]
resources:
  limits:
    cpu: "2"
    nvidia.com/gpu: 1
gpuModels: ["NVIDIA-L4"]
"""
    d = only(tmp_path, "values.yaml", values)
    assert d["container.kind"][:2] == ("kubernetes", "manifest")
    assert d["container.cpu_limit"] == (2.0, "manifest", 7, 10)
    for key in ("container.ipc_host", "container.shm_enlarged", "container.port_on_all_interfaces",
                "container.mount_targets"):
        assert key not in d  # the chart's templates write the pod spec: what the values omit is unknown


# -- P2: exposure, IPC, shared memory -------------------------------------------------------------------------------

COMPOSE_PORTS = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.10.0
    command: --model org/m
    ports:
      - "127.0.0.1:8000:8000"
      - target: 9000
        host_ip: "::1"
"""


def test_compose_ports(tmp_path: Path) -> None:
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS)
    assert d["container.port_on_all_interfaces"] == (False, "manifest", 2, 3)  # every one on the loopback
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS + "      - 8080:8080\n")
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 9, 9)
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS + "      - target: 8080\n        published: 8080\n")
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 9, 9)  # long syntax without host_ip
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS + "      - 0.0.0.0:8080:8080\n")
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 9, 9)
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS + "      - 10.0.0.5:8080:8080\n")
    assert "container.port_on_all_interfaces" not in d  # one interface that is not the loopback: not said
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS + "      - ${BIND}:8080:8080\n")
    assert "container.port_on_all_interfaces" not in d  # the address is not in the file
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS + "    network_mode: host\n")
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 9, 19)
    d = only(tmp_path, "compose.yaml", COMPOSE_PORTS.split("    ports:")[0])
    assert d["container.port_on_all_interfaces"] == (False, "manifest", 2, 3)  # nothing published


def test_docker_run_ports(tmp_path: Path) -> None:
    image = "vllm/vllm-openai:v0.10.0 --model org/m\n"
    d = only(tmp_path, "serve.sh", "docker run -p 8000:8000 " + image)
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 1, 15)
    d = only(tmp_path, "serve.sh", "docker run -p 127.0.0.1:8000:8000 -p [::1]:9000:9000 " + image)
    assert d["container.port_on_all_interfaces"] == (False, "manifest", 1, 1)
    d = only(tmp_path, "serve.sh", "docker run -P " + image)
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 1, 12)
    d = only(tmp_path, "serve.sh", "docker run --net=host " + image)
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 1, 12)
    d = only(tmp_path, "serve.sh", "docker run --network host " + image)
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 1, 22)
    d = only(tmp_path, "serve.sh", "docker run " + image)
    assert d["container.port_on_all_interfaces"] == (False, "manifest", 1, 1)
    d = only(tmp_path, "serve.sh", "docker run -p8000:8000 " + image)
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 1, 12)  # the value in the same word


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: v}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          args: ["--model", "org/m"]
          ports:
            - containerPort: 8000
"""


def test_kubernetes_exposure(tmp_path: Path) -> None:
    d = only(tmp_path, "deploy.yaml", POD)
    assert d["container.port_on_all_interfaces"] == (False, "manifest", 8, 17)
    d = only(tmp_path, "deploy.yaml", POD + "              hostPort: 8000\n")
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 13, 25)
    d = only(tmp_path, "deploy.yaml", POD.replace("      containers:", "      hostNetwork: true\n      containers:"))
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 7, 20)
    service = "---\napiVersion: v1\nkind: Service\nmetadata: {name: v}\nspec:\n  type: NodePort\n"
    d = only(tmp_path, "deploy.yaml", POD + service)
    assert d["container.port_on_all_interfaces"] == (True, "manifest", 18, 9)
    d = only(tmp_path, "deploy.yaml", POD + service.replace("NodePort", "ClusterIP"))
    assert d["container.port_on_all_interfaces"] == (False, "manifest", 8, 17)


def test_ipc_and_shared_memory_compose(tmp_path: Path) -> None:
    base = "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.0\n    command: --model org/m\n"
    d = only(tmp_path, "compose.yaml", base)
    assert d["container.ipc_host"] == (False, "manifest", 2, 3)
    assert d["container.shm_enlarged"] == (False, "manifest", 2, 3)  # Docker's 64 MiB
    assert "container.shm_mib" not in d
    d = only(tmp_path, "compose.yaml", base + "    ipc: host\n")
    assert d["container.ipc_host"] == (True, "manifest", 5, 10)
    assert d["container.shm_enlarged"] == (True, "manifest", 5, 10)
    d = only(tmp_path, "compose.yaml", base + "    shm_size: 2gb\n")
    assert d["container.shm_mib"] == (2048, "manifest", 5, 15)
    assert d["container.shm_enlarged"] == (True, "manifest", 5, 15)
    d = only(tmp_path, "compose.yaml", base + "    shm_size: '512m'\n")
    assert d["container.shm_mib"] == (512, "manifest", 5, 15)
    assert d["container.shm_enlarged"] == (False, "manifest", 5, 15)
    d = only(tmp_path, "compose.yaml", base + "    shm_size: 1073741824\n")
    assert d["container.shm_mib"] == (1024, "manifest", 5, 15)  # bytes
    d = only(tmp_path, "compose.yaml", base + "    shm_size: ${SHM}\n")
    assert "container.shm_mib" not in d and "container.shm_enlarged" not in d
    d = only(tmp_path, "compose.yaml", base + "    volumes:\n      - /dev/shm:/dev/shm\n")
    assert "container.shm_enlarged" not in d  # the host's /dev/shm bound in: its size is not in the file


def test_ipc_and_shared_memory_docker(tmp_path: Path) -> None:
    image = "vllm/vllm-openai:v0.10.0 --model org/m\n"
    d = only(tmp_path, "serve.sh", "docker run --ipc=host " + image)
    assert d["container.ipc_host"] == (True, "manifest", 1, 12)
    assert d["container.shm_enlarged"] == (True, "manifest", 1, 12)
    d = only(tmp_path, "serve.sh", "docker run --ipc host --shm-size 16g " + image)
    assert d["container.ipc_host"] == (True, "manifest", 1, 18)
    assert d["container.shm_mib"] == (16384, "manifest", 1, 34)
    d = only(tmp_path, "serve.sh", "podman run --shm-size=256m " + image)
    assert d["container.ipc_host"] == (False, "manifest", 1, 1)
    assert d["container.shm_mib"] == (256, "manifest", 1, 12)
    assert d["container.shm_enlarged"] == (False, "manifest", 1, 12)


def test_ipc_and_shared_memory_kubernetes(tmp_path: Path) -> None:
    d = only(tmp_path, "deploy.yaml", POD)
    assert d["container.ipc_host"] == (False, "manifest", 8, 17)
    assert d["container.shm_enlarged"] == (False, "manifest", 8, 17)
    shm = POD + """\
          volumeMounts:
            - name: dshm
              mountPath: /dev/shm
      volumes:
        - name: dshm
          emptyDir:
            medium: Memory
"""
    d = only(tmp_path, "deploy.yaml", shm)
    assert d["container.shm_enlarged"] == (True, "manifest", 15, 26)
    assert "container.shm_mib" not in d  # no size limit
    d = only(tmp_path, "deploy.yaml", shm + "            sizeLimit: 8Gi\n")
    assert d["container.shm_mib"] == (8192, "manifest", 15, 26)
    d = only(tmp_path, "deploy.yaml", shm.replace("            medium: Memory\n", "            {}\n").replace(
        "          emptyDir:\n            {}\n", "          emptyDir: {}\n"))
    assert "container.shm_enlarged" not in d  # a disk-backed emptyDir at /dev/shm: not said
    d = only(tmp_path, "deploy.yaml", POD.replace("      containers:", "      hostIPC: true\n      containers:"))
    assert d["container.ipc_host"] == (True, "manifest", 7, 16)
    assert d["container.shm_enlarged"] == (True, "manifest", 7, 16)


# -- P3: mount targets, adapters outside them -----------------------------------------------------------------------


def test_mount_targets(tmp_path: Path) -> None:
    compose = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.10.0
    command: --model org/m
    volumes:
      - ./models:/models:ro
      - type: bind
        source: ~/.cache/huggingface
        target: /root/.cache/huggingface/
      - /scratch
    tmpfs: /tmp
"""
    d = only(tmp_path, "compose.yaml", compose)
    assert d["container.mount_targets"] == (",/models,/root/.cache/huggingface,/scratch,/tmp,", "manifest", 6, 9)
    d = only(tmp_path, "serve.sh", "docker run -v /srv/m:/models --mount type=bind,src=/a,dst=/adapters "
                                   "vllm/vllm-openai:v0.10.0 --model org/m\n")
    assert d["container.mount_targets"] == (",/adapters,/models,", "manifest", 1, 15)
    d = only(tmp_path, "serve.sh", "docker run vllm/vllm-openai:v0.10.0 --model org/m\n")
    assert d["container.mount_targets"] == (",", "manifest", 1, 1)  # none
    d = only(tmp_path, "serve.sh", "docker run -v \"$SRC:$DST\" vllm/vllm-openai:v0.10.0 --model org/m\n")
    assert "container.mount_targets" not in d
    pod = POD + "          volumeMounts:\n            - {name: m, mountPath: /models}\n"
    d = only(tmp_path, "deploy.yaml", pod)
    assert d["container.mount_targets"] == (",/models,", "manifest", 14, 36)
    d = only(tmp_path, "serve.sh", "vllm serve org/m\n")
    assert "container.mount_targets" not in d  # no container


def test_lora_unmounted_path(tmp_path: Path) -> None:
    run = "docker run -v /srv/lora:/adapters vllm/vllm-openai:v0.10.0 --model org/m --enable-lora --lora-modules "
    d = only(tmp_path, "serve.sh", run + "a=/adapters/a b=/loras/b\n")
    assert d["lora.unmounted_path"] == ("/loras/b", "flag", 1, 117)
    d = only(tmp_path, "serve.sh", run + "a=/adapters/a b=org/hub-adapter\n")
    assert d["lora.unmounted_path"] == (None, "inferred", 1, 15)  # every path mounted; a hub id never counts
    d = only(tmp_path, "serve.sh", run + "'{\"name\": \"a\", \"path\": \"/opt/a\"}'\n")
    assert d["lora.unmounted_path"] == ("/opt/a", "flag", 1, 103)
    d = only(tmp_path, "serve.sh", run + "a=$ADAPTER\n")
    assert "lora.unmounted_path" not in d  # the path is not in the file
    d = only(tmp_path, "serve.sh", "vllm serve org/m --enable-lora --lora-modules a=/loras/a\n")
    assert "lora.unmounted_path" not in d  # no container: its mounts are not known
    llama = "docker run -v /m:/models ghcr.io/ggml-org/llama.cpp:server -m /models/q.gguf --lora "
    d = only(tmp_path, "serve.sh", llama + "/lora/x.gguf\n")
    assert d["lora.unmounted_path"] == ("/lora/x.gguf", "flag", 1, 85)
    d = only(tmp_path, "serve.sh", llama + "/models/x.gguf\n")
    assert d["lora.unmounted_path"] == (None, "inferred", 1, 15)


# -- the parsers ----------------------------------------------------------------------------------------------------


def test_sizes_cpus_and_addresses() -> None:
    from relialint.engines.evidence import cpu_count, docker_bytes, quantity_bytes
    from relialint.readers.dockerrun import mount_target, publish_host_ip, volume_target

    assert [docker_bytes(t) for t in ("2gb", "1g", "512m", "512MiB", "67108864", "1.5g", "lots")] == [
        2 * 1024**3, 1024**3, 512 * 1024**2, 512 * 1024**2, 67108864, int(1.5 * 1024**3), None]
    assert [quantity_bytes(t) for t in ("1Gi", "512Mi", "2G", "1073741824", "1gi")] == [
        1024**3, 512 * 1024**2, 2 * 1000**3, 1073741824, None]
    assert [cpu_count(t) for t in ("2", "1.5", "1500m", "'0.5'", "two")] == [2.0, 1.5, 1.5, 0.5, None]
    assert [publish_host_ip(t) for t in ("8000", "8000:8000", "127.0.0.1:8000:8000", "[::1]:80:80", "0.0.0.0::80",
                                         "8000:8000/udp")] == ["", "", "127.0.0.1", "::1", "0.0.0.0", ""]
    assert [volume_target(t) for t in ("/a:/b", "/a:/b:ro", "vol:/data", "/anon", "C:\\m:/models")] == [
        "/b", "/b", "/data", "/anon", "/models"]
    assert mount_target("type=bind,source=/a,target=/b") == "/b"
    assert mount_target("type=volume,src=v,destination=/d,readonly") == "/d"
    assert mount_target("type=tmpfs") is None


def test_no_cpu_limit_is_absent(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "docker run --cpus 0 vllm/vllm-openai:v0.10.0 --model org/m\n")
    assert "container.cpu_limit" not in d  # --cpus 0: no limit


def test_scripts_inside_containers_keep_the_container(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", 'docker run --ipc=host vllm/vllm-openai:v0.10.0 bash -lc "vllm serve org/m"\n')
    assert d["container.kind"] == ("docker", "manifest", 1, 1)
    assert d["container.ipc_host"] == (True, "manifest", 1, 12)
    compose = ("services:\n  v:\n    image: vllm/vllm-openai:v0.10.0\n"
               '    entrypoint: ["sh", "-c", "vllm serve org/m"]\n    ipc: host\n')
    d = only(tmp_path, "compose.yaml", compose)
    assert d["container.kind"] == ("compose", "manifest", 2, 3)
    assert d["container.ipc_host"] == (True, "manifest", 5, 10)
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  hostIPC: true\n  containers:\n  - name: c\n"
           '    image: vllm/vllm-openai:v0.10.0\n    command: ["/bin/sh", "-c"]\n    args: ["vllm serve org/m"]\n')
    d = only(tmp_path, "pod.yaml", pod)
    assert d["container.kind"] == ("kubernetes", "manifest", 7, 11)
    assert d["container.ipc_host"] == (True, "manifest", 5, 12)


def test_memlock_compose(tmp_path: Path) -> None:
    base = "services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-b6000\n    command: -m /m/q.gguf --mlock\n"
    key = "container.memlock_unlimited"
    assert only(tmp_path, "compose.yaml", base)[key] == (False, "manifest", 2, 3)  # the runtime's default
    d = only(tmp_path, "compose.yaml", base + "    ulimits:\n      memlock: -1\n")
    assert d[key] == (True, "manifest", 6, 16)
    d = only(tmp_path, "compose.yaml", base + "    ulimits:\n      memlock:\n        soft: -1\n        hard: -1\n")
    assert d[key] == (True, "manifest", 7, 15)
    d = only(tmp_path, "compose.yaml", base + "    ulimits:\n      memlock: {soft: 65536, hard: 65536}\n")
    assert d[key] == (False, "manifest", 6, 23)
    d = only(tmp_path, "compose.yaml", base + "    ulimits:\n      memlock: 2147483648\n")
    assert d[key] == (True, "manifest", 6, 16)  # 2 GiB: raised
    d = only(tmp_path, "compose.yaml", base + "    cap_add:\n      - IPC_LOCK\n")
    assert d[key] == (True, "manifest", 6, 9)
    d = only(tmp_path, "compose.yaml", base + "    privileged: true\n")
    assert d[key] == (True, "manifest", 5, 17)
    d = only(tmp_path, "compose.yaml", base + "    ulimits:\n      memlock: ${MEMLOCK}\n")
    assert key not in d  # not in the file


def test_memlock_docker(tmp_path: Path) -> None:
    image = "ghcr.io/ggml-org/llama.cpp:server-b6000 -m /m/q.gguf --mlock\n"
    key = "container.memlock_unlimited"
    assert only(tmp_path, "serve.sh", "docker run " + image)[key] == (False, "manifest", 1, 1)
    assert only(tmp_path, "serve.sh", "docker run --ulimit memlock=-1:-1 " + image)[key] == (True, "manifest", 1, 21)
    assert only(tmp_path, "serve.sh", "docker run --ulimit=memlock=8192 " + image)[key] == (False, "manifest", 1, 12)
    d = only(tmp_path, "serve.sh", "docker run --ulimit nofile=65536 --cap-add SYS_NICE " + image)
    assert d[key] == (False, "manifest", 1, 1)  # another limit, another capability
    assert only(tmp_path, "serve.sh", "podman run --cap-add=CAP_IPC_LOCK " + image)[key] == (True, "manifest", 1, 12)
    assert only(tmp_path, "serve.sh", "docker run --privileged " + image)[key] == (True, "manifest", 1, 12)
    assert key not in only(tmp_path, "serve.sh", "docker run --ulimit \"$LIMIT\" " + image)


def test_memlock_kubernetes_is_unknown(tmp_path: Path) -> None:
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: llm\nspec:\n  containers:\n    - name: llm\n"
           "      image: ghcr.io/ggml-org/llama.cpp:server-b6000\n      args: [\"-m\", \"/m/q.gguf\", \"--mlock\"]\n")
    d = only(tmp_path, "pod.yaml", pod)
    assert d["container.kind"][0] == "kubernetes" and "container.memlock_unlimited" not in d
    d = only(tmp_path, "pod.yaml", pod + "      securityContext:\n        capabilities:\n          add: [IPC_LOCK]\n")
    assert d["container.memlock_unlimited"] == (True, "manifest", 12, 17)
    d = only(tmp_path, "pod.yaml", pod + "      securityContext:\n        privileged: true\n")
    assert d["container.memlock_unlimited"] == (True, "manifest", 11, 21)
    d = only(tmp_path, "pod.yaml", pod + "      securityContext:\n        capabilities:\n          add: [NET_ADMIN]\n")
    assert "container.memlock_unlimited" not in d
