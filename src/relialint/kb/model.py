"""The record format as pydantic models. ``schemas/record.schema.json`` is generated from ``Record``."""

from __future__ import annotations

import datetime
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

Scalar = Union[str, bool, int, float]
OPERATORS = ("eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "present", "matches")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Leaf(_Strict):
    """A test on one fact; exactly one operator."""

    fact: str = Field(description="a fact key of the vocabulary, or flag.<engine>.<name>, env.<NAME>, build.<OPT>")
    eq: Scalar | None = None
    ne: Scalar | None = None
    in_: list[Scalar] | None = Field(default=None, alias="in")
    not_in: list[Scalar] | None = None
    lt: Scalar | None = None
    le: Scalar | None = None
    gt: Scalar | None = None
    ge: Scalar | None = None
    present: bool | None = None
    matches: str | None = None

    @model_validator(mode="after")
    def _one_operator(self) -> Leaf:
        used = [op for op in OPERATORS if getattr(self, "in_" if op == "in" else op) is not None]
        if len(used) != 1:
            raise ValueError(f"a leaf takes exactly one of {', '.join(OPERATORS)}; got {used or 'none'}")
        if self.matches is not None:
            from relialint.base.bounds import regex_problem

            problem = regex_problem(self.matches)
            if problem is not None:
                raise ValueError(f"matches: the pattern has {problem}; records may use only patterns that cannot "
                                 "backtrack without bound")
        return self

    def operator(self) -> tuple[str, object]:
        for op in OPERATORS:
            value = getattr(self, "in_" if op == "in" else op)
            if value is not None:
                return op, value
        raise AssertionError("validated leaf without operator")


class All(_Strict):
    all: list[Predicate] = Field(min_length=1)


class Any_(_Strict):
    any: list[Predicate] = Field(min_length=1)


class Not(_Strict):
    not_: Predicate = Field(alias="not")


Predicate = Annotated[Union[All, Any_, Not, Leaf], Field(description="all / any / not, or a leaf on one fact")]


Bound = Literal["introduced", "fixed", "last_affected", "last_known_good"]


class CodeCheck(_Strict):
    """One test on one file of a released artifact (a vLLM or SGLang wheel; the llama.cpp source vendored by a
    llama-cpp-python sdist, paths relative to ``vendor/llama.cpp/``): exactly one of a regular expression that must
    be found (``present``) or must not be (``absent``) in the file's text, or a Python name the module must define
    (``defines``, ``Class.method`` by the module's syntax tree) or must not (``undefined``)."""

    path: str = Field(description="a file path inside the artifact; * and ** match within and across folders, and "
                      "the test holds when it holds in any matching file (absent/undefined: in none)")
    present: str | None = None
    absent: str | None = None
    defines: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
    undefined: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

    @model_validator(mode="after")
    def _one_test(self) -> CodeCheck:
        used = [k for k in ("present", "absent", "defines", "undefined") if getattr(self, k) is not None]
        if len(used) != 1:
            raise ValueError(f"a code check takes exactly one of present, absent, defines, undefined; got {used}")
        return self


class Witness(_Strict):
    """What makes a released artifact affected, checked on every release by ``tools/witness.py``; the committed
    result (``records/witnesses/<ID>.json``) must show each bound of the range where the range puts it."""

    code: list[CodeCheck] = Field(default_factory=list, description="all must hold for a release to be affected")
    unwitnessed: dict[Bound, str] = Field(
        default_factory=dict,
        description="bounds that no released code can show (hardware behaviour, a measured regression with no code "
        "change found), each with why; such a bound never makes a finding definite or clean: the versions it "
        "alone decides are possible")

    older_unchecked: bool = Field(
        default=False, description="the code checks already hold on the oldest release checked, which is the "
        "range's introduced: releases older than it were not checked, so they are possible, not clean")

    @model_validator(mode="after")
    def _something(self) -> Witness:
        if not self.code and not self.unwitnessed:
            raise ValueError("a witness needs code checks or the bounds no code can show (unwitnessed)")
        return self


class AffectedRange(_Strict):
    """OSV-style affected versions of one engine."""

    engine: Literal["vllm", "llama.cpp", "sglang"]
    introduced: str | None = None
    fixed: str | None = None
    last_affected: str | None = None
    last_known_good: str | None = None
    observed: list[str] = Field(default_factory=list)
    bound_sources: dict[Literal["introduced", "fixed", "last_affected", "last_known_good"], str] = Field(
        default_factory=dict,
        description="where each bound comes from, e.g. fixed: 'the release that first contains the fixing commit "
        "of PR #1234 (v0.8.3)'; relialint validate requires one for every bound the range sets (KB015)")
    witness: Witness | None = Field(
        default=None, description="the released code that shows each bound (KB017); required for every range "
        "that sets introduced, fixed, last_affected or last_known_good")

    @model_validator(mode="after")
    def _something(self) -> AffectedRange:
        if not (self.introduced or self.fixed or self.last_affected or self.last_known_good or self.observed):
            raise ValueError("an affected range needs at least one of introduced, fixed, last_affected, "
                             "last_known_good, observed")
        return self


class FixEdit(_Strict):
    """A fix that is a pure edit of the same invocation: set facts to these values."""

    set: dict[str, Scalar] = Field(min_length=1)


class Trigger(_Strict):
    when: Predicate
    affected: list[AffectedRange] = Field(default_factory=list)
    locate: list[str] = Field(default_factory=list, description="facts whose location the finding points at")
    message: str
    fix_edit: FixEdit | None = None


class Evidence(_Strict):
    measured: str = Field(description="the figure or observation, as the source states it")
    setup: str = Field(description="GPU, engine version, flags, model it was measured on")


class Reference(_Strict):
    kind: Literal["source", "report", "fix", "upstream"]
    title: str
    url: str | None = None
    locator: str | None = None


class ReachQuery(_Strict):
    """One exact search behind a reach estimate, and how many files it found."""

    text: str = Field(min_length=3, description="the exact string searched (a flag, env var, image or model name)")
    hits: int = Field(ge=0, description="files of the public index that hold it")


class Reach(_Strict):
    """How many public deployment configs can hit the record: the estimate, and the searches it rests on, so anyone
    can rerun them. A record with a config trigger that no public config can hit waits (``KB021``)."""

    estimate: int = Field(ge=0, description="public config files that can hit the record")
    searched: datetime.date = Field(description="the day the searches were run")
    method: str = Field(default="exact, case-insensitive string search over the stored public GitHub source and "
                                "documentation files (the search tool's find_string)")
    queries: list[ReachQuery] = Field(min_length=1)
    note: str | None = Field(default=None, description="how the estimate follows from the hits (overlaps, files "
                                                       "that are not configs, what a config also needs)")


Format = Literal["shell", "compose", "kubernetes", "helm", "env", "vllm-config", "systemd", "dockerfile", "windows",
                 "nvidia-smi", "amd-smi"]
"""The file formats an example can be written in; ``nvidia-smi`` and ``amd-smi`` are captures that
``relialint probe`` reads (``nvidia-smi -q -x``, ``--query-gpu --format=csv``; ``amd-smi``, ``rocm-smi`` JSON or
CSV), and test a record's ``runtime_trigger``."""


class Location(_Strict):
    line: int = Field(ge=1)
    column: int = Field(ge=1)


class Example(_Strict):
    name: str
    outcome: Literal["fires", "passes", "possible"]
    format: Format
    filename: str | None = None
    gpu: str | None = None
    engine_version: str | None = None
    os: Literal["linux", "windows", "macos"] | None = None
    facts: dict[str, Scalar] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    at: Location | None = None
    content: str


class Record(_Strict):
    """One gotcha record."""

    schema_version: Literal[1] = 1
    id: str = Field(pattern=r"^RL[1-9][0-9]{2}$")
    slug: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=10)
    status: Literal["active", "withdrawn"] = "active"
    withdrawn_reason: str | None = Field(
        default=None, description="why a withdrawn record no longer stands (required when status is withdrawn)")
    published: datetime.date
    modified: datetime.date
    severity: Literal["blocker", "major", "minor"]
    impact: Literal["wrong-output", "performance", "capacity", "measurement", "ignored-config", "exposure"]
    engines: list[Literal["vllm", "llama.cpp", "sglang"]] = Field(default_factory=list)
    summary: str
    symptom: str
    cause: str
    evidence: list[Evidence] = Field(default_factory=list)
    fix: str
    fix_cost: str | None = None
    detect: str
    references: list[Reference] = Field(min_length=1)
    related: list[str] = Field(default_factory=list)
    reach: Reach | None = Field(default=None, description="how many public configs can hit the record (required "
                                                          "from the catalogue-growth rule on, KB021)")
    trigger: Trigger | None = None
    runtime_trigger: Trigger | None = Field(
        default=None, description="a trigger over the runtime.* facts of a live host, evaluated by relialint probe "
        "(never by check); its examples are nvidia-smi or amd-smi captures")
    examples: list[Example] = Field(default_factory=list)

    @model_validator(mode="after")
    def _withdrawn_says_why(self) -> Record:
        if (self.status == "withdrawn") != (self.withdrawn_reason is not None):
            raise ValueError("withdrawn_reason is required when status is withdrawn, and only then")
        return self


IMPACT_BY_HUNDRED = {
    "1": "wrong-output",
    "2": "performance",
    "3": "capacity",
    "4": "measurement",
    "5": "ignored-config",
    "6": "exposure",
}


def json_schema() -> dict[str, object]:
    schema = Record.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://relialint.dev/schemas/record.schema.json"
    return schema
