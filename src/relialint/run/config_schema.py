"""The configuration file's settings as pydantic models (imported only when a configuration file is read, so
that a run without one pays nothing for them)."""

from __future__ import annotations

import datetime
import re
from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

FailOn = Literal["blocker", "major", "minor", "never"]
FactValue = Union[str, bool, int, float]


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=_kebab, populate_by_name=True, frozen=True,
                              strict=True)


class TargetSettings(_Model):
    """One target of a multi-target run: a GPU and, optionally, more facts."""

    name: str | None = None
    gpu: str | None = None
    engine_version: str | None = None
    os: Literal["linux", "windows", "macos"] | None = None
    facts: dict[str, FactValue] = Field(default_factory=dict)

    def label(self) -> str:
        return self.name or self.gpu or "target"


class _Common(_Model):
    gpu: str | None = None
    targets: list[Union[str, TargetSettings]] | None = None
    engine_version: str | None = None
    os: Literal["linux", "windows", "macos"] | None = None
    facts: Union[dict[str, FactValue], str] = Field(default_factory=dict)
    """A table of facts, or the path of a facts file (``relialint probe --write-facts``, ``vllm collect-env``)
    relative to the configuration file."""
    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_ignore: list[str] = Field(default_factory=list)
    fail_on: FailOn | None = None
    strict: bool | None = None

    @field_validator("select", "ignore", "extend_ignore")
    @classmethod
    def _codes(cls, value: list[str] | None) -> list[str] | None:
        for code in value or []:
            if not re.fullmatch(r"RL\d{0,3}", code):
                raise ValueError(f"{code!r} is not a record id or prefix (RL1, RL105)")
        return value


class Override(_Common):
    """``[[tool.relialint.overrides]]``: settings for the files that match ``paths``."""

    paths: list[str] = Field(min_length=1)


class Suppression(_Model):
    """``[[tool.relialint.suppress]]``: an accepted finding, out of band, with a reason and maybe an expiry."""

    record: str
    paths: list[str] = Field(default_factory=lambda: ["**"])
    reason: str
    expires: datetime.date | None = None

    @field_validator("record")
    @classmethod
    def _record(cls, value: str) -> str:
        if not re.fullmatch(r"RL\d{1,3}", value):
            raise ValueError(f"{value!r} is not a record id or prefix (RL105, RL1)")
        return value

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a suppression needs a reason")
        return value.strip()


class Settings(_Common):
    """The whole ``[tool.relialint]`` table."""

    exclude: list[str] = Field(default_factory=list)
    overrides: list[Override] = Field(default_factory=list)
    suppress: list[Suppression] = Field(default_factory=list)
    baseline: str | None = None
    follow_outside: bool | None = None
    """Read files outside the project root that linted files name or symlink to (``--follow-outside``)."""


