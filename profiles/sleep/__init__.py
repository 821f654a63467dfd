"""The night pass: ``memgraph sleep`` (see ``profiles.sleep.pipeline``; its stages in
``profiles.sleep.stages``)."""
