"""Night-pass classification of operator messages: rules first, Ollama optional.

``labels`` (categories, ``Classification``), ``rules`` (deterministic classifier;
its cue tables in ``cues``), ``ollama`` (optional proposer), ``night`` (the pass
that turns proposals into one validated patch), ``evaluate`` (accuracy on a
labeled set).
"""
