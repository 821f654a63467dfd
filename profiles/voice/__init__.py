"""The voice profile: transcript readers, prefilter, message nodes, voice pages."""

# Lazy: the readers and fast paths import submodules without paying for the
# pydantic documents that the policy pulls in.
from typing import Any

__all__ = ["VOICE"]


def __getattr__(name: str) -> Any:
    if name == "VOICE":
        from profiles.voice.policy import VOICE

        return VOICE
    raise AttributeError(name)
