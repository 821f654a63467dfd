"""The artifact profile: commits and vault pages as nodes."""

from profiles.artifact.policy import ARTIFACT

__all__ = ["ARTIFACT"]
