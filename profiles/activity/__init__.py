"""The activity profile: session windows and entity-validated grouping."""

# Lazy: the readers and fast paths import submodules without paying for the
# pydantic documents that the policy pulls in.
from typing import Any

__all__ = ["ACTIVITY"]


def __getattr__(name: str) -> Any:
    if name == "ACTIVITY":
        from profiles.activity.policy import ACTIVITY

        return ACTIVITY
    raise AttributeError(name)
