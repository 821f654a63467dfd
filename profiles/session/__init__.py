"""The session profile: spark notes and their YAML views."""

from profiles.session.policy import SESSION

__all__ = ["SESSION"]
