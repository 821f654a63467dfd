"""The artifact profile: commits and vault pages as nodes."""

# Lazy: the readers and fast paths import submodules without paying for the
# pydantic documents that the policy pulls in.
from typing import Any

__all__ = ["ARTIFACT"]


def __getattr__(name: str) -> Any:
    if name == "ARTIFACT":
        from profiles.artifact.policy import ARTIFACT

        return ARTIFACT
    raise AttributeError(name)
