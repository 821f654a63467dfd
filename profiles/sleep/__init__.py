"""The night pass: ``memgraph sleep`` (see ``profiles.sleep.pipeline``)."""
