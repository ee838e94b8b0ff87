"""GPU facts from how a manifest selects nodes and devices.

Readers pass on labels as written (``nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3`` from a ``nodeSelector``,
``cloud.google.com/gke-accelerator``, ``nvidia.com/gpu.compute.major``/``.minor``, ``nvidia.com/gpu.family``,
``nvidia.com/gpu``/``amd.com/gpu`` resource limits, MIG slices such as ``nvidia.com/mig-2g.12gb``, compose
``runtime: nvidia`` and device drivers). This module maps them through the hardware catalogue and the table of what
names a GPU (``data/gpu_evidence.yaml``: which labels name the product, which GPUs have a MIG profile, which GPU a
cloud instance type such as ``g5.2xlarge`` has) onto ``gpu.*``
facts with origin ``manifest``. A product label the catalogue does not know gives a located note and leaves the facts
unknown. Alternatives (``In`` with several values, a MIG profile several GPUs have) give the facts all of them share,
and ``gpu.candidates`` (the rows, ``|``-joined), which narrows the GPU worlds to exactly those rows.
"""

from __future__ import annotations

from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, Value
from relialint.core.hardware import Gpu
from relialint.core.versions import VersionError, parse_sm
from relialint.engines import evidence
from relialint.readers.located import Command, FileResult, Span

MIG_RESOURCE = "nvidia.com/mig-"
VENDOR_LABELS = {"nvidia.com/gpu": "nvidia", "amd.com/gpu": "amd", "gpu.intel.com/i915": "intel",
                 "gpu.intel.com/xe": "intel", "compose.runtime": None, "compose.driver": None}
FAMILY_SM = {"hopper": "9.0", "blackwell": "10.0", "volta": "7.0", "turing": "7.5", "ada-lovelace": "8.9"}


def _at(value: Value, span: Span, note: str | None = None) -> Fact:
    return Fact(value, "manifest", span.path, span.line, span.column, span.end_line, span.end_column, note)


def _gpus_facts(gpus: tuple[Gpu, ...], span: Span, why: str) -> dict[str, Fact]:
    """The facts every one of ``gpus`` shares, and ``gpu.candidates`` when they are several rows."""
    shared: dict[str, object] | None = None
    for gpu in gpus:
        these = gpu.facts()
        shared = dict(these) if shared is None else {k: v for k, v in shared.items() if these.get(k) == v}
    facts = {key: _at(value, span, why) for key, value in (shared or {}).items()}  # type: ignore[arg-type]
    names = list(dict.fromkeys(gpu.name for gpu in gpus))
    if len(names) > 1:
        facts["gpu.candidates"] = _at("|".join(names), span, f"{why}: one of {', '.join(names)}")
    return facts


def label_facts(labels: list[tuple[str, str, Span]]) -> tuple[dict[str, Fact], list[str]]:
    """GPU facts and notes from one command's labels."""
    from relialint.core import hardware

    facts: dict[str, Fact] = {}
    notes: list[str] = []
    major: tuple[str, Span] | None = None
    minor: tuple[str, Span] | None = None
    product = hardware.product_labels()
    instances = hardware.instance_labels()
    for label, value, span in labels:
        where = f"{span.path}:{span.line}:{span.column}"
        if label in VENDOR_LABELS:
            vendor = VENDOR_LABELS[label] or (value if value in ("nvidia", "amd") else None)
            if vendor is not None:
                facts.setdefault("gpu.vendor", _at(vendor, span))
            continue
        if label.startswith(MIG_RESOURCE):
            profile = label[len(MIG_RESOURCE):]
            named = hardware.mig_profile(profile)
            facts.setdefault("gpu.vendor", _at("nvidia", span, f"MIG resource {label}"))
            if named is None:
                notes.append(f"MIG resource {label} ({where}): profile {profile} is not in the table of MIG profiles; "
                             "the GPU stays open among NVIDIA's")
                continue
            for key, fact in _gpus_facts(named.gpus, span, f"MIG resource {label}: profile {profile} exists only "
                                         f"on {', '.join(g.name for g in named.gpus)} ({named.source})").items():
                facts[key] = fact
            continue
        if label in instances:
            found = [hardware.instance_type(name) for name in value.split("|")]
            by_type = [n for n in found if n is not None]
            if by_type and len(by_type) == len(found):  # every alternative has a known GPU
                gpus = tuple(g for n in by_type for g in n.gpus)
                sources = "; ".join(dict.fromkeys(n.source for n in by_type))
                facts.update(_gpus_facts(gpus, span, f"from node label {label}={value.replace('|', ' or ')} "
                                         f"({sources})"))
            continue
        if label in product:
            # GPU Feature Discovery's single MIG strategy appends the slice: A100-SXM4-40GB-MIG-1g.5gb is an A100
            alternatives = [name.split("-MIG-", 1)[0] for name in value.split("|")]
            resolved = []
            for name in alternatives:
                try:
                    resolved.append(hardware.resolve(name))
                except hardware.UnknownGpu:
                    notes.append(f"GPU label {label}={name} ({where}) is not in the hardware catalogue; "
                                 "gpu facts stay unknown (set --gpu)")
                    resolved = []
                    break
            if not resolved:
                continue
            facts.update(_gpus_facts(tuple(resolved), span, f"from node label {label}={value.replace('|', ' or ')} "
                                     f"({product[label]})"))
            continue
        if label == "nvidia.com/gpu.compute.major" and "|" not in value:
            major = (value, span)
        elif label == "nvidia.com/gpu.compute.minor" and "|" not in value:
            minor = (value, span)
        elif label == "nvidia.com/gpu.family":
            facts.setdefault("gpu.vendor", _at("nvidia", span))
            sm = FAMILY_SM.get(value.lower())
            if sm is not None:
                facts.setdefault("gpu.sm", _at(parse_sm(sm), span, f"from node label {label}"))
    if major is not None and "gpu.sm" not in facts:
        try:
            sm_value = parse_sm(f"{major[0]}.{minor[0] if minor else '0'}")
        except VersionError:
            sm_value = None
        if sm_value is not None and minor is not None:
            facts["gpu.sm"] = _at(sm_value, major[1], "from node labels nvidia.com/gpu.compute.major/minor")
            facts.setdefault("gpu.vendor", _at("nvidia", major[1]))
    return facts, notes


def _command_spans(command: Command) -> set[tuple[str, int, int]]:
    spans = [w.span for w in command.argv] + [w.span for w in command.entrypoint or []]
    if command.image is not None:
        spans.append(command.image.span)
    spans.append(command.span)
    return {(s.path, s.line, s.column) for s in spans}


def apply(result: FileResult, deployments: list[Deployment]) -> None:
    """Give each deployment the GPU facts of the command that launches it (file facts, before target facts)."""
    for command in result.commands:
        if not command.gpu_labels:
            continue
        spans = _command_spans(command)
        owners = [d for d in deployments if (d.span.path, d.span.line, d.span.column) in spans]
        if not owners:
            continue
        facts, notes = label_facts(command.gpu_labels)
        for deployment in owners:
            label_vendor = facts.get("gpu.vendor")
            known = deployment.facts.facts.get("gpu.vendor")
            deployment.notes.extend(notes)
            if label_vendor is not None and ("gpu.vendor" in deployment.facts.blocked or (
                    known is not None and known.value != label_vendor.value)):
                # the file's other evidence says another vendor (or disagrees with itself): no GPU from the labels
                if len(facts) > 1:
                    deployment.notes.append(f"GPU labels ({label_vendor.path}:{label_vendor.line}) name a "
                                            f"{label_vendor.value} GPU that the file's other evidence does not "
                                            "agree with; gpu facts from the labels are not used")
                continue
            for key, fact in facts.items():
                deployment.facts.setdefault(key, fact)
            evidence.implied(deployment)  # a vendor from the labels gives vLLM its backend, as other evidence does
