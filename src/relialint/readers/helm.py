"""Helm values files, read the way the chart they belong to renders them.

The chart is recognised by the shape of its values (and ``Chart.yaml`` beside them where there is one):

* the vLLM production-stack chart (``servingEngineSpec.modelSpec[]``): ``helm_stack``;
* vLLM's example chart (``image.command`` with ``gpuModels``/``extraInit``), AMD Silo AI's ``llm-inference-vllm``
  chart (``model`` with ``vllm_engine_args``), KubeAI's ``models`` chart (``catalog`` entries with ``url`` and
  ``engine``) and the ``llama-server`` llama.cpp chart (``llama.args`` map): ``helm_charts``;
* any other chart: only containers whose values plainly hold the server's arguments (``helm_charts``).

Every word and env var points at the values key or value that produced it; ``docs/fact-sources.md`` lists each
chart's mapping with the template it follows.
"""

from __future__ import annotations

from relialint.readers import bounded, helm_charts, helm_stack
from relialint.readers.helmvalues import chart_beside
from relialint.readers.located import FileResult
from relialint.readers.opener import FileOpener
from relialint.readers.yamlsafe import YamlError, YMap
from relialint.readers.yamlwords import load, seq_items, yaml_error


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """Read Helm values; the ``Chart.yaml`` beside them is read through ``opener``."""
    result = FileResult(path, "helm", text=text)
    try:
        documents = load(text, path)
    except YamlError as exc:
        result.errors.append(exc.error)
        return result
    root = documents[0] if documents else None
    if not isinstance(root, YMap):
        result.errors.append(yaml_error(path, root, "not Helm values (the top level is not a map)", "error"))
        return result
    spec = _stack_values(root)
    if spec is not None:
        chart = chart_beside(path, helm_stack.CHART, opener)
        for model in seq_items(spec.get("modelSpec")):
            if isinstance(model, YMap):
                helm_stack.read_model(model, chart, result)
    elif helm_charts.is_chart_vllm(root):
        helm_charts.read_chart_vllm(root, result)
    elif helm_charts.is_kubeai_models(root):
        helm_charts.read_kubeai_models(root, result)
    elif helm_charts.is_silogen_vllm(root):
        helm_charts.read_silogen_vllm(root, result)
    elif helm_charts.is_llama_server(root):
        helm_charts.read_llama_server(root, result)
    else:
        helm_charts.read_generic(root, result)
    return result


def _stack_values(root: YMap) -> YMap | None:
    """``servingEngineSpec`` at the top, or one level down under an umbrella chart's dependency key."""
    spec = root.get("servingEngineSpec")
    if isinstance(spec, YMap):
        return spec
    for _, value in root.items:
        inner = value.get("servingEngineSpec") if isinstance(value, YMap) else None
        if isinstance(inner, YMap):
            return inner
    return None
