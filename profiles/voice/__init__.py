"""The voice profile: transcript readers, prefilter, message nodes, voice pages."""

from profiles.voice.policy import VOICE

__all__ = ["VOICE"]
