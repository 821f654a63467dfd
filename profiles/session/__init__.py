"""The session profile: spark notes and their YAML views."""

# Lazy: the readers and fast paths import submodules without paying for the
# pydantic documents that the policy pulls in.
from typing import Any

__all__ = ["SESSION"]


def __getattr__(name: str) -> Any:
    if name == "SESSION":
        from profiles.session.policy import SESSION

        return SESSION
    raise AttributeError(name)
