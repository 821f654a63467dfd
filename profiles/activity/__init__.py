"""The activity profile: session windows and entity-validated grouping."""

from profiles.activity.policy import ACTIVITY

__all__ = ["ACTIVITY"]
