"""Night-pass classification of operator messages: rules first, Ollama optional.

``labels`` (categories, ``Classification``), ``rules`` (deterministic
classifier), ``ollama`` (optional proposer), ``night`` (the pass that turns
proposals into one validated patch), ``evaluate`` (accuracy on a labeled set).
"""
