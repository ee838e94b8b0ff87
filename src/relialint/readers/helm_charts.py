"""Helm values of the other charts relialint reads, each the way its template renders it, and the values of any
other chart only where they plainly hold a server's arguments.

* ``chart-vllm`` (vLLM's own example chart, ``examples/online_serving/chart-helm``): ``image.command`` is the
  container's ``command:`` as written, ``image.env`` its ``env:``; the GPU count is
  ``resources.limits["nvidia.com/gpu"]`` and, with GPUs, ``gpuModels`` become a required
  ``nvidia.com/gpu.product In [...]`` node affinity.
* ``llama-server`` (rockofox/helm-llama-cpp): arguments ``--port <service.port> --host 0.0.0.0``, then each
  ``llama.args`` key in sorted order (Go ranges over a map by key) as ``--KEY VALUE``, or ``--KEY`` alone when the
  value is falsy (``false``, ``0``, ``""``), on the image's own entrypoint.
* ``llm-inference-vllm`` (AMD Silo AI's chart, silogen/ai-workloads ``workloads/llm-inference-vllm/helm``):
  ``templates/_entrypoint.tpl`` runs ``python3 -m vllm.entrypoints.openai.api_server`` inside ``sh -c`` with each
  ``vllm_engine_args`` key in sorted order as ``--KEY="VALUE"`` (``tpl`` of the value, so a string; ``--KEY`` alone
  when the value is null), then ``--model=<model>`` (an ``s3://`` model is first copied to ``/workload/<path>``),
  ``--tensor-parallel-size=<gpus>``, ``--host="0.0.0.0"`` and ``--port=8080``; ``templates/deployment.yaml`` gives
  ``env_vars`` as the container's env (a ``{name, key}`` map is a secret: unknown) and ``gpus`` as its
  ``amd.com/gpu`` request and limit; ``image`` is the image reference as written.
* KubeAI's ``models`` chart (substratusai/kubeai ``charts/models``): ``templates/models.yaml`` renders a
  ``kubeai.org/v1`` Model for each ``catalog`` entry that is ``enabled`` (or with ``all.enabled``), and KubeAI's
  controller (``internal/modelcontroller/engine_vllm.go``) runs an ``engine: VLLM`` Model as ``python3 -m
  vllm.entrypoints.openai.api_server --model=<the hf:// repository> --served-model-name=<entry name>`` and the
  entry's ``args``, with ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``, ``HF_TOKEN`` from a secret and the entry's
  ``env`` (sorted). The image, node selectors and GPU count come from the cluster's resource profiles, which the
  values do not hold: a profile name such as ``nvidia-gpu-l4:1`` is the cluster's own name, not evidence.
* any other chart: a map holding an ``image`` and a list under ``args``/``extraArgs``/``extra_args``/``command``
  (a top-level one, or a container of a controller such as bjw-s app-template's
  ``controllers.NAME.containers.NAME``) is that container; ``env`` as a Kubernetes list or a map. A list is read
  only when it holds at least one ``--option``; maps of options are not read, since how an unknown chart
  renders a map is not known.
"""

from __future__ import annotations

from relialint.readers.helmvalues import env_map, image_word, pair_span, render, render_any, render_yaml, truthy
from relialint.readers.kubernetes import container_env, container_gpus, helm_labels
from relialint.readers.located import Command, EnvVar, FileResult, Span, Word
from relialint.readers.yamlsafe import YMap, YNode, YScalar, YSeq
from relialint.readers.yamlwords import map_items, scalar_text, seq_items

_ARG_KEYS = ("args", "extraArgs", "extra_args")
_MAX_DEPTH = 6


def is_chart_vllm(root: YMap) -> bool:
    image = root.get("image")
    return isinstance(image, YMap) and isinstance(image.get("command"), YSeq) \
        and (root.get("gpuModels") is not None or root.get("extraInit") is not None)


def read_chart_vllm(root: YMap, result: FileResult) -> None:
    image_node = root.get("image")
    if not isinstance(image_node, YMap):
        return  # (is_chart_vllm said it is one)
    image = image_word(image_node)
    command = [Word(render_yaml(item), item.span) if isinstance(item, YScalar) else Word(None, item.span)
               for item in seq_items(image_node.get("command"))]  # toYaml of the list
    env, complete = container_env(image_node)
    count, count_span, _ = container_gpus(root)
    labels: list[tuple[str, str, Span]] = []
    models = [render(item) for item in seq_items(root.get("gpuModels")) if isinstance(item, YScalar)]
    models_key = next((k for k, _ in root.items if k.text == "gpuModels"), None)
    if count and models and models_key is not None:
        labels.append(("nvidia.com/gpu.product", "|".join(models), models_key.span))
    span = image.span if image is not None else image_node.span
    result.commands.append(Command("container", [], span, env, complete, image, command or None, None, count,
                                   count_span, labels))
    result.commands[-1].container_labels = helm_labels(root, span)


def is_llama_server(root: YMap) -> bool:
    llama = root.get("llama")
    return isinstance(llama, YMap) and isinstance(llama.get("args"), YMap) and root.get("image") is not None


def read_llama_server(root: YMap, result: FileResult) -> None:
    llama = root.get("llama")
    args = llama.get("args") if isinstance(llama, YMap) else None
    if not isinstance(llama, YMap) or not isinstance(args, YMap):
        return  # (is_llama_server said they are mappings)
    args_key = next(k for k, _ in llama.items if k.text == "args")
    argv: list[Word] = []
    service = root.get("service")
    port = service.get("port") if isinstance(service, YMap) else None
    argv.extend([Word("--port", args_key.span),
                 Word(render(port) if isinstance(port, YScalar) else None,
                      port.span if port is not None else args_key.span),
                 Word("--host", args_key.span), Word("0.0.0.0", args_key.span)])
    for key, value in sorted(args.items, key=lambda item: item[0].text):
        argv.append(Word(f"--{key.text}", key.span))
        if truthy(value):
            argv.append(Word(render(value) if isinstance(value, YScalar) else None, value.span))
    image = image_word(root.get("image"))
    count, count_span, _ = container_gpus(root)
    result.commands.append(Command("container", argv, image.span if image else args_key.span, [], True, image,
                                   None, None, count, count_span))
    result.commands[-1].container_labels = helm_labels(root, result.commands[-1].span)


def is_silogen_vllm(root: YMap) -> bool:
    engine_args = root.get("vllm_engine_args")
    return isinstance(root.get("model"), YScalar) and isinstance(root.get("image"), YScalar) \
        and (isinstance(engine_args, YMap) or (isinstance(engine_args, YScalar) and engine_args.value is None))


def read_silogen_vllm(root: YMap, result: FileResult) -> None:
    image = image_word(root.get("image"))
    model = root.get("model")
    if image is None or not isinstance(model, YScalar):
        return  # (is_silogen_vllm said they are scalars)
    at = image.span
    entrypoint = [Word("python3", at), Word("-m", at), Word("vllm.entrypoints.openai.api_server", at)]
    argv: list[Word] = []
    for key, value in sorted(map_items(root.get("vllm_engine_args")), key=lambda item: item[0].text):
        if isinstance(value, YScalar) and value.value is None:
            argv.append(Word(f"--{key.text}", key.span))
        elif (text := _shell_quoted(value)) is not None:
            argv.append(Word(f"--{key.text}={text}", pair_span(key, value)))
        else:  # the option is given, its value is not known
            argv.extend([Word(f"--{key.text}", key.span), Word(None, value.span)])
    path = render(model)
    if path.startswith("s3://"):
        path = "/workload/" + path.removeprefix("s3://").rstrip("/")
    argv.append(Word(f"--model={path}", model.span))
    gpus = root.get("gpus")
    count: int | None = None
    labels: list[tuple[str, str, Span]] = []
    if isinstance(gpus, YScalar):
        printed = render(gpus)
        argv.append(Word(f"--tensor-parallel-size={printed}", gpus.span))
        count = int(printed) if printed.isdigit() else None
        if truthy(gpus):
            labels.append(("amd.com/gpu", printed, gpus.span))
    else:
        argv.append(Word(None, at))  # the chart's --tensor-parallel-size= of a missing value: not known
    argv.extend([Word("--host=0.0.0.0", at), Word("--port=8080", at)])
    env = env_map(root.get("env_vars"))
    result.commands.append(Command("container", argv, at, env, True, image, entrypoint, None, count,
                                   gpus.span if count is not None and isinstance(gpus, YNode) else None, labels))
    result.commands[-1].container_labels = helm_labels(None, at)


def _shell_quoted(value: YNode) -> str | None:
    """``{{ tpl $value $ | quote }}`` read back by ``sh -c``: the string itself, where it holds no template and
    nothing the shell would expand inside double quotes; a value that is not a string makes ``tpl`` fail."""
    if not isinstance(value, YScalar) or not isinstance(value.value, str):
        return None
    text = value.text
    return None if "{{" in text or any(c in text for c in '"$`\\') else text


def is_kubeai_models(root: YMap) -> bool:
    return any(isinstance(model, YMap) and model.get("url") is not None and model.get("engine") is not None
               for _, model in map_items(root.get("catalog")))


def read_kubeai_models(root: YMap, result: FileResult) -> None:
    every = root.get("all")
    all_enabled = isinstance(every, YMap) and truthy(every.get("enabled"))
    for name, model in map_items(root.get("catalog")):
        if not isinstance(model, YMap) or not (all_enabled or truthy(model.get("enabled"))):
            continue  # the template renders no Model for it
        if scalar_text(model.get("engine")) != "VLLM":
            continue  # OLlama, FasterWhisper, Infinity: other servers
        at = name.span
        url = model.get("url")
        repo = render(url).removeprefix("hf://") if isinstance(url, YScalar) and render(url).startswith("hf://") \
            else None  # pvc://, s3://, gs://, oss:// are loaded into a cache path the values do not give
        argv = [Word("python3", at), Word("-m", at), Word("vllm.entrypoints.openai.api_server", at),
                Word(f"--model={repo}" if repo else None, url.span if isinstance(url, YNode) else at),
                Word(f"--served-model-name={name.text}", at)]
        argv += [_word(item) for item in seq_items(model.get("args"))]
        env = [EnvVar("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True", at), EnvVar("HF_TOKEN", None, at)]
        env += sorted(env_map(model.get("env")), key=lambda var: var.name)
        result.commands.append(Command("container", argv, at, env, True))
        result.commands[-1].container_labels = helm_labels(None, at)


def read_generic(root: YMap, result: FileResult) -> None:
    """Containers of an unknown chart whose values plainly hold the server's arguments."""
    _walk(root, result, 0)


def _walk(node: YNode, result: FileResult, depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, YMap):
        if _container(node, result):
            return
        for _, value in node.items:
            _walk(value, result, depth + 1)
    elif isinstance(node, YSeq):
        for item in node.items:
            _walk(item, result, depth + 1)


def _container(node: YMap, result: FileResult) -> bool:
    image = image_word(node.get("image"))
    if image is None:
        return False
    lists = [(key, value) for key, value in node.items if key.text in _ARG_KEYS and isinstance(value, YSeq)]
    command = node.get("command")
    options = any(_is_option(item) for _, value in lists for item in value.items) \
        or (isinstance(command, YSeq) and any(_is_option(item) for item in command.items))
    if not options:
        return False
    argv = [_word(item) for _, value in lists for item in value.items]
    entrypoint = [_word(item) for item in command.items] if isinstance(command, YSeq) else None
    env_node = node.get("env")
    if isinstance(env_node, YSeq):
        env, complete = container_env(node)
    else:
        env, complete = env_map(env_node), node.get("envFrom") is None
    count, count_span, _ = container_gpus(node)
    result.commands.append(Command("container", argv, image.span, env, complete, image, entrypoint, None, count,
                                   count_span))
    result.commands[-1].container_labels = helm_labels(node, image.span)
    return True


def _is_option(item: YNode) -> bool:
    return isinstance(item, YScalar) and isinstance(item.value, str) and item.text.startswith("--")


def _word(item: YNode) -> Word:
    if isinstance(item, YScalar):
        return Word(render_any(item), item.span)
    return Word(None, item.span)
