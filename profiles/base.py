"""What a profile is: declarative lifecycle law plus a few typed rules.

A profile owns the node/edge kinds it accepts, its lifecycle state machine
(a transition table) and rules the engine runs before any generic mutation.
Profiles hold no state and do no I/O; rules read the graph through
``RuleContext`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from memgraph.documents import GraphOp, MemoryEdge, MemoryNode, ProfileName
from memgraph.errors import IllegalTransition


class RuleContext(Protocol):
    """The engine's working view: the store plus this patch's earlier ops."""

    def node(self, node_id: str) -> MemoryNode | None: ...

    def nodes_in_domain(
        self, domain_id: str, profile: str, states: Iterable[str]
    ) -> list[MemoryNode]: ...

    def has_approving_review(self, node_id: str) -> bool: ...


NodeRule = Callable[[MemoryNode | None, MemoryNode, RuleContext], Iterable[str]]
EdgeRule = Callable[[MemoryEdge, RuleContext], Iterable[str]]
OpRule = Callable[[GraphOp, RuleContext], Iterable[str]]


@dataclass(frozen=True)
class Profile:
    name: ProfileName
    description: str
    node_kinds: frozenset[str]
    edge_kinds: frozenset[str]
    states: tuple[str, ...]
    initial: frozenset[str]
    transitions: Mapping[str, frozenset[str]]
    retired_state: str
    revised_state: str | None = None
    edge_states: tuple[str, ...] | None = None
    node_rules: tuple[NodeRule, ...] = field(default=())
    edge_rules: tuple[EdgeRule, ...] = field(default=())
    op_rules: tuple[OpRule, ...] = field(default=())
    # States a forced sleep must account for: a profile that takes part in
    # forced sleep names its open states here (the engine reads nothing else).
    sleep_open_states: frozenset[str] = field(default=frozenset())
    # Moves that change how far a claim is trusted, not what it claims (a review
    # accepting a scanner's observation): a summary over the node stays fresh.
    # Any other lifecycle change (retiring, going stale) still stales it.
    trust_moves: frozenset[tuple[str, str]] = field(default=frozenset())

    def __post_init__(self) -> None:
        # A malformed table is a programming error: fail at import, not at apply.
        known = set(self.states)
        bad = [s for s in (*self.initial, self.retired_state) if s not in known]
        for src, targets in self.transitions.items():
            bad += [s for s in (src, *targets) if s not in known]
        bad += [s for s in self.sleep_open_states if s not in known]
        if self.revised_state is not None and self.revised_state not in known:
            bad.append(self.revised_state)
        for src, dst in self.trust_moves:
            bad += [s for s in (src, dst) if s not in known]
        if bad:
            raise ValueError(f"profile {self.name}: unknown states {sorted(set(bad))}")
        for src, dst in sorted(self.trust_moves):
            if dst not in self.transitions.get(src, frozenset()):
                raise ValueError(f"profile {self.name}: trust move {src} -> {dst} is no transition")

    @property
    def allowed_edge_states(self) -> tuple[str, ...]:
        return self.edge_states if self.edge_states is not None else self.states

    def can_transition(self, current: str | None, target: str) -> bool:
        if current is None:
            return target in self.initial
        if current == target:
            return True
        return target in self.transitions.get(current, frozenset())


def transition(profile: Profile, current: str | None, target: str) -> str:
    """Return ``target`` if the profile's table allows ``current -> target``.

    ``current=None`` means the node is new: only initial states are allowed.
    Raises ``IllegalTransition`` otherwise.
    """
    if target not in profile.states or not profile.can_transition(current, target):
        raise IllegalTransition(profile.name.value, current, target)
    return target


def table(**edges: Iterable[str]) -> dict[str, frozenset[str]]:
    """Build a transition table: ``table(active={"cooled", "retired"}, ...)``."""
    return {src: frozenset(dst) for src, dst in edges.items()}
