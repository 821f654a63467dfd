"""Deterministic rule classifier: weighted cue patterns, no model.

Each label has cue patterns with weights. A message scores the sum of the
weights of the cues it matches; the highest score wins, ties go to the label
listed first in ``PRIORITY``. Confidence grows with the winning score and with
its margin over the runner-up, so a message that matches one weak cue, or two
labels equally, comes out unsure. A message that matches nothing falls back by
shape: short imperative-looking text is a ``command``, anything else a
``directive`` at low confidence.

Cues cover the lower-case, typo-ridden, mixed-language way operators type
(English first, with common German/Spanish/French/Chinese markers).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from profiles.voice.classify.labels import (
    MAX_TOPICS,
    Classification,
    Label,
    Proposal,
    normalize_topics,
)

# When two labels score the same, the earlier one wins: a correction or a
# question is the more specific reading of an ambiguous message.
PRIORITY: tuple[Label, ...] = (
    Label.correction,
    Label.question,
    Label.definition,
    Label.decision,
    Label.rationale,
    Label.preference,
    Label.directive,
    Label.command,
)

_I = re.IGNORECASE

# Imperative verbs of one-off operational requests ("run the tests", "commit").
_COMMAND_VERBS = (
    "run|rerun|re-run|commit|push|pull|fix|show|open|check|deploy|restart|install|build|"
    "merge|rebase|try|retry|lint|format|delete|remove|rm|cat|ls|grep|print|list|add|create|"
    "update|bump|revert|continue|proceed|go|start|stop|kill|test|debug|look|read|write|"
    "generate|refactor|rename|move|clean|ship|release|tag|implement|change|replace|set|put|"
    "find|search|explain|describe|summari[sz]e|help|lanza|ejecuta|mach|starte|lance"
)

_CUES: dict[Label, tuple[tuple[re.Pattern[str], float], ...]] = {
    Label.correction: (
        (re.compile(r"^\s*(no+|nope|nah|nein|non|不是|不对)\b[\s,.!—-]", _I), 2.0),
        (re.compile(r"^\s*(no+|nope|nein)\s*$", _I), 2.0),
        (re.compile(r"^\s*(no+[,!.]|no,? no\b|nope[,!.])", _I), 1.5),
        (
            re.compile(
                r"\b(that'?s|thats|this is|its|it's|das ist)\s+(wrong|not right|falsch)", _I
            ),
            3.0,
        ),
        (re.compile(r"\b(wrong|incorrect|falsch|mal)\b", _I), 1.2),
        (re.compile(r"\bnot what i (asked|meant|said|wanted)\b", _I), 3.0),
        (
            re.compile(r"\byou('re| are|re)?\s+(misread|misunderst\w*|mixing|confus\w*|wrong)", _I),
            3.0,
        ),
        (re.compile(r"\byou\s+(misread|misunderstood|broke|forgot|missed|ignored)\b", _I), 3.0),
        (re.compile(r"\bi (said|told you|asked for)\b", _I), 2.5),
        (re.compile(r"^\s*actually\b", _I), 2.0),
        (re.compile(r"^\s*(undo|revert)\b", _I), 1.5),
        (re.compile(r"\brevert (that|this|it)\b", _I), 1.5),
        (re.compile(r"^\s*stop\b[,.!]", _I), 2.0),
        (re.compile(r"\bnot\s+\S+(\s+\S+)?\s+but\b", _I), 1.5),
        (re.compile(r"\b(is|are|it'?s|in|takes|comes from)\b.{1,60}\bnot\s+(in\s+)?\S+", _I), 1.0),
        (re.compile(r"\b(the old|outdated|old) api\b", _I), 1.5),
        (
            re.compile(
                r"\bcan'?t fail\b|\bdoesn'?t (work|compile)\b|\bstill (broken|failing)\b", _I
            ),
            1.5,
        ),
        (re.compile(r"\b(again|instead)\s*[.!]?\s*$", _I), 0.8),
        (re.compile(r"\bnot a bug\b", _I), 2.0),
        (re.compile(r"^\s*(hmm+|uh+|erm|well|wait)[,.]?\s+no\b", _I), 2.5),
        (re.compile(r"\byou'?ve (got|mixed|swapped|broken|reversed|confused)\b", _I), 2.5),
        (re.compile(r"\b(broke|breaks|reversed|backwards|regress\w*)\b", _I), 1.5),
        (re.compile(r"^\s*(careful|wait|hold on|whoa|err|erm|uh|um)\b", _I), 1.5),
        (re.compile(r"\b(the old|an old|outdated)\b", _I), 1.0),
    ),
    Label.question: (
        (re.compile(r"\?\s*$"), 3.0),
        (re.compile(r"\?"), 1.0),
        (
            re.compile(
                r"^\s*(so\s+|and\s+|but\s+)?(why|what|whats|what's|how|when|where|which|who|whose|is|are|does|do|did|"
                r"can|could|would|should|will|shall|any idea|u sure|you sure|wait,? do|"
                r"who'?s|how'?s|where'?s|isn'?t|aren'?t|doesn'?t|didn'?t|have we|has it|"
                r"warum|wieso|was|wie|wo|por ?qu[ée]|qu[ée]|c[oó]mo|pourquoi|est-ce)\b",
                _I,
            ),
            2.0,
        ),
        (re.compile(r"为什么|怎么|吗\s*$|是否"), 2.5),
        (re.compile(r"\b(any idea|wondering|not sure (if|whether)|do you know)\b", _I), 1.5),
    ),
    Label.definition: (
        (re.compile(r"\b(by|when i say)\s+['\"`]?\w[\w\s-]{0,30}['\"`]?,?\s+i mean\b", _I), 4.0),
        (re.compile(r"\bi mean\b", _I), 1.0),
        (re.compile(r"^\s*(a|an|the)?\s*['\"`]?[\w -]{1,30}['\"`]?\s*(=|:=)\s*\S", _I), 3.0),
        (
            re.compile(
                r"['\"`][\w -]{1,30}['\"`]\s+(here\s+|for \w+( \w+)?\s+)?(means|is|=)\b", _I
            ),
            3.0,
        ),
        (
            re.compile(
                r"\b(means|stands for|is short for|refers to|is defined as|"
                r"we call|what we call|is just a|is simply)\b",
                _I,
            ),
            2.5,
        ),
        (re.compile(r"\b(glossary|definition|terminology|the term)\b", _I), 3.0),
        (
            re.compile(
                r"\bverstehe ich\b|\bse refiere\b|\bsignifica\b|\bheißt\b|意思是|指的是", _I
            ),
            3.0,
        ),
        (
            re.compile(r"^\s*(fyi\s+)?(a|an)\s+[\w -]{2,30}\s+is\s+(a|an|the|just|when|one)\b", _I),
            2.5,
        ),
        (re.compile(r"\bis not a (claim|todo|task|bug)\b|\bit'?s not a\b", _I), 1.0),
        (
            re.compile(
                r"^\s*(fyi:?\s+|heads up:?\s+)?[\w'-]+(\s[\w'-]+){0,2}\s+(is|are)\s+"
                r"(where|when|what|how|just|basically|simply|the (thing|place|part|name))\b",
                _I,
            ),
            2.5,
        ),
        (re.compile(r"['\"`][\w -]{1,30}['\"`]\s*(=|:)\s*\w", _I), 2.0),
        (re.compile(r"\b(is|are) (the|a|an) (folder|file|place|thing|one|name|term)\b", _I), 1.5),
        (
            re.compile(r"\b(i'?m talking about|refers? to|in this codebase|in my messages)\b", _I),
            1.5,
        ),
    ),
    Label.decision: (
        (re.compile(r"\b(decided|decision|settled|final|agreed|verdict)\b", _I), 2.5),
        (
            re.compile(
                r"\b(we|i|let'?s|lets)\s*('ll|will)?\s*(go|going)\s+with\b|\bgoing with\b", _I
            ),
            3.0,
        ),
        (
            re.compile(
                r"\b(let'?s|lets)\s+(keep|use|do|go|stick|drop|ship|make|switch|move)\b", _I
            ),
            2.0,
        ),
        (
            re.compile(
                r"\bwe('ll| will| are| 're|re)?\s*(not\s+)?(keep|use|ship|drop|switch|stick|"
                r"support|go|stay|choose|pick|adopt|move)\w*\b",
                _I,
            ),
            1.5,
        ),
        (re.compile(r"\bwe won'?t\b|\bwe('re| are) not\b|\bwe don'?t\b", _I), 1.0),
        (re.compile(r"\b(choosing|chose|picking|picked|opting)\b", _I), 2.0),
        (re.compile(r"\bthe plan is\b|\bplan:\s", _I), 2.5),
        (
            re.compile(
                r"^\s*(ok|okay|fine|alright|right|vale|gut|bon)\b[,:]?\s+(we|so|let|use|then|"
                r"nos|wir|on)\b",
                _I,
            ),
            1.5,
        ),
        (
            re.compile(
                r"\b(instead of|rather than|over)\b.{0,40}\b(for now|v\d|final|default)\b", _I
            ),
            1.0,
        ),
        (re.compile(r"\b(for now|from here on|going forward)\b", _I), 0.5),
        (re.compile(r"\bnos quedamos\b|\bwir nehmen\b|\bon garde\b|\bon part sur\b|决定", _I), 3.0),
        (re.compile(r"\bafter thinking\b|\bok so\b", _I), 1.0),
        (
            re.compile(
                r"\b(stays?|remains?|sticks? with|confirmed|done deal|pick|moving|switching)\b", _I
            ),
            1.5,
        ),
        (re.compile(r"\b(let'?s|lets) not\b|\bnot bother\b|\bis enough\b", _I), 2.0),
        (re.compile(r"^\s*(right|alright|ok|okay|fine|good)[,.!]", _I), 1.0),
        (re.compile(r"\bis the default\b|\bdefaults? to\b|\bopt-in\b", _I), 1.0),
    ),
    Label.rationale: (
        (re.compile(r"\b(because|bc|cuz|coz|since|weil|porque|parce que|da)\b", _I), 2.5),
        (re.compile(r"因为|所以"), 2.5),
        (
            re.compile(
                r"\b(the reason|reason for|that'?s why|thats why|the point (of|is)|so that|"
                r"in order to|otherwise|mainly for|the idea is|it has to be)\b",
                _I,
            ),
            3.0,
        ),
        (re.compile(r"\bso (a|an|the|we|it|they|you|ci|that|i|nothing|no)\b", _I), 1.5),
        (re.compile(r"\b(reason|why we|whole point)\b", _I), 1.5),
        (re.compile(r"\bso (that )?\w+( \w+)? (never|always|can|can'?t|won'?t|don'?t)\b", _I), 1.5),
        (re.compile(r"\bthat'?s (to|so)\b|\bmeans (we|you|i) can\b", _I), 2.5),
        (re.compile(r"^\s*to (keep|make|avoid|get|stay|allow|let)\b", _I), 2.0),
        (re.compile(r"\bstill (gets?|works?|runs?)\b|\bwithout\b.{0,30}\bstill\b", _I), 1.5),
        (re.compile(r"\b(auditab\w*|so we can|that way)\b", _I), 1.0),
    ),
    Label.preference: (
        (
            re.compile(
                r"\bi('d| would)?\s*(really\s+)?(prefer|like|love|hate|dislike|favou?r)\b", _I
            ),
            3.0,
        ),
        (
            re.compile(
                r"\b(prefer|preferably|i'?d rather|rather not|not a fan|fan of|my favou?rite|"
                r"personally|i find|easier on the eyes|nicer|cleaner|prettier)\b",
                _I,
            ),
            2.5,
        ),
        (re.compile(r"\b(would be nice|would be nicer|i'?d like|i want)\b", _I), 2.0),
        (re.compile(r"\bmy (favou?rite|preference)\b", _I), 1.5),
        (
            re.compile(
                r"\b(me gusta|prefiero|lieber|ich mag|je préfère|j'aime|我喜欢|更喜欢)\b", _I
            ),
            3.0,
        ),
        (re.compile(r"\b(better than|more than|over)\b", _I), 0.7),
        (re.compile(r"\b(don'?t care|easier to read|noisy|ugly)\b", _I), 1.0),
        (
            re.compile(r"\b(looked|looks|look|is|was|seems?) (better|worse|nicer|cleaner)\b", _I),
            2.0,
        ),
        (re.compile(r"\bpartial to\b|\bhonestly\b", _I), 2.0),
        (
            re.compile(
                r"\b(i'?d go for|not crazy about|i enjoy|is fine|fine by me|to me|for me|"
                r"kinda|i feel|feels)\b",
                _I,
            ),
            2.0,
        ),
    ),
    Label.directive: (
        (
            re.compile(
                r"\b(always|never|ever|every time|whenever|from now on|going forward|"
                r"at all times|in this repo|everywhere|no exceptions)\b",
                _I,
            ),
            2.5,
        ),
        (
            re.compile(
                r"\b(make sure|ensure|must|have to|has to|need to|needs to|should always|"
                r"do not|don'?t|dont|no more)\b",
                _I,
            ),
            1.5,
        ),
        (re.compile(r"^\s*(don'?t|dont|do not|never|always|keep|use|avoid)\b", _I), 1.0),
        (re.compile(r"\b(stop|quit) \w+ing\b|\bhard rule\b|\bthe rule is\b", _I), 3.5),
        (re.compile(r"\b(immer|nie|niemals|siempre|nunca|toujours|jamais|bitte immer)\b", _I), 2.5),
        (re.compile(r"以后|不要|总是|永远|必须"), 2.5),
        (
            re.compile(
                rf"^\s*when(ever)? (you|i|we)\b[^?]{{0,60}},\s*({_COMMAND_VERBS}|ask|use)\b", _I
            ),
            2.5,
        ),
        (re.compile(r"\b(all|every|any)\s+\w+\s+(must|should|goes|go)\b", _I), 1.5),
        (re.compile(r"\b(any|every|each) new\b|^\s*remember to\b|^\s*\w+ nothing\b", _I), 2.0),
        (re.compile(r"\bwithout asking\b|\bask me first\b", _I), 1.5),
    ),
    Label.command: (
        (re.compile(rf"^\s*(pls\s+|please\s+|now\s+|ok\s+|okay\s+)?({_COMMAND_VERBS})\b", _I), 2.0),
        (
            re.compile(
                r"^\s*(git|npm|pip|uv|make(?! sure)|pytest|cargo|docker|ruff|mypy|ls|cd|cat)\s", _I
            ),
            3.0,
        ),
        (
            re.compile(
                r"^\s*(yes|yep|yeah|y|ok|okay|sure|go|go ahead|do it|continue|proceed|lgtm|"
                r"ship it|si|ja|vas-y|weiter)\b[\s!.]*(do it|go|go ahead|please|pls)?[\s!.]*$",
                _I,
            ),
            3.0,
        ),
        (re.compile(r"\b(the tests|the diff|the logs?|ci|the build)\b", _I), 0.5),
        (re.compile(r"\b(and (commit|push|retry|rerun|run))\b", _I), 1.0),
        (re.compile(r"\b(otra vez|nochmal|encore)\b", _I), 1.0),
        (re.compile(r"^\s*(please|pls|can you|could you)\b", _I), 1.0),
        (re.compile(r"^\s*/[a-z][\w-]*(\s|$)", _I), 3.0),  # a slash command typed as a prompt
        (re.compile(r"^\s*(我们需要|需要|请|帮我|麻烦)"), 2.0),
    ),
}

_IMPERATIVE_START = re.compile(rf"^\s*({_COMMAND_VERBS})\b", _I)

_STOPWORD_LINES = (
    "wrong right good bad fine better worse nice nicer cleaner prefer rather",
    "nothing something anything everything thing things does doing done way bit lot",
    "yet then than via per etc maybe perhaps",
    "a an and are as at be been but by can could did do does dont don't for from had",
    "has have i i'd i'm if in into is it it's its just let lets let's me my no not",
    "now of on or our out pls please so some still such than that thats that's the",
    "their them then there these they this those to too u up us use using was we",
    "we'll were what whats when where which while who why will with would you your",
    "youre you're ok okay yes also all any every always never again here there only",
    "more less much many very really actually about after before over under via get",
    "got go going make made want need like one two new old first last same other",
    "thing stuff run show fix check try sure btw fyi ever should must think know",
    "because since otherwise der die das und ist nicht ein eine mit für auf el la los",
    "las que de en con por para una |",
)
_STOPWORDS = frozenset(w for line in _STOPWORD_LINES for w in line.split()) | frozenset(
    _COMMAND_VERBS.split("|")
)

_CODE_TOKEN = re.compile(
    r"`([^`\n]{2,40})`"  # backticked
    r"|((?<![\w.-])(?:[\w.-]{1,64}/){1,8}[\w.-]{1,64})"  # paths (bounded: no backtracking blowup)
    r"|(\b[a-z]+(?:_[a-z0-9]+)+\b)"  # snake_case
    r"|(\b[A-Za-z][a-z0-9]*(?:[A-Z]+[a-z0-9]+)+\b)"  # CamelCase, SQLiteStore
    r"|(\b[a-z]+\.[a-z_]+(?:\.[a-z_]+)*\b)"  # dotted.names
)
# Apostrophes stay inside a word so "don't" is one (contraction) token, which
# is then skipped, instead of leaving a topic "don".
_WORD = re.compile(r"[^\W\d_][\w'’+-]{2,}", re.UNICODE)


def extract_topics(text: str, limit: int = MAX_TOPICS) -> list[str]:
    """Up to ``limit`` topics: code-ish tokens first, then the most frequent content words."""
    topics: list[str] = []
    text = _window(text)
    for match in _CODE_TOKEN.finditer(text):
        token = next(g for g in match.groups() if g)
        topics.append(token.strip("./-"))
    words = [w.lower() for w in _WORD.findall(_CODE_TOKEN.sub(" ", text))]
    counts = Counter(
        w for w in words if w not in _STOPWORDS and len(w) >= 3 and "'" not in w and "’" not in w
    )
    # most frequent first; among equals, the earliest in the message
    order = {w: i for i, w in reversed(list(enumerate(words)))}
    topics.extend(sorted(counts, key=lambda w: (-counts[w], order[w])))
    return normalize_topics(topics)[:limit]


@dataclass(frozen=True)
class RuleScore:
    label: Label
    confidence: float
    scores: dict[Label, float]


# Cues sit near the start of a message (and a question mark at its end); a
# pasted log of megabytes adds nothing but regex time.
MAX_RULE_CHARS = 4000


def _window(text: str) -> str:
    if len(text) <= MAX_RULE_CHARS:
        return text
    return text[: MAX_RULE_CHARS - 200] + " " + text[-200:]


def score_text(text: str) -> RuleScore:
    """The winning label, its confidence, and every label's raw score."""
    clean = " ".join(_window(text).split())
    scores = {label: 0.0 for label in PRIORITY}
    for label, cues in _CUES.items():
        for pattern, weight in cues:
            if pattern.search(clean):
                scores[label] += weight
    ranked = sorted(PRIORITY, key=lambda lab: (-scores[lab], PRIORITY.index(lab)))
    best, second = ranked[0], ranked[1]
    top, margin = scores[best], scores[best] - scores[second]
    if top <= 0.0:
        short = len(clean.split()) <= 6
        if short and (_IMPERATIVE_START.search(clean) or not clean.endswith(".")):
            return RuleScore(Label.command, 0.35, scores)
        # a plain statement with no cue most often records how things will be
        return RuleScore(Label.decision if not short else Label.command, 0.25, scores)
    # 0.4 for a lone weak cue, approaching 0.95 for a strong, uncontested match
    confidence = 0.4 + 0.35 * min(top, 5.0) / 5.0 + 0.2 * min(margin, 3.0) / 3.0
    return RuleScore(best, round(min(confidence, 0.95), 3), scores)


def classify_text(message_id: str, text: str) -> Classification:
    """Classify one message deterministically (same text, same answer)."""
    result = score_text(text)
    return Classification(
        id=message_id,
        classification=result.label,
        confidence=result.confidence,
        topics=extract_topics(text),
    )


class RuleClassifier:
    """The deterministic classifier behind ``--classifier rules``."""

    name = "rules"

    def classify(self, items: Iterable[tuple[str, str]]) -> list[Classification]:
        """Classify ``(id, text)`` pairs; never fails, never calls out."""
        return [classify_text(message_id, text) for message_id, text in items]

    def propose(self, items: Iterable[tuple[str, str]]) -> list[Proposal]:
        """The night pass's view: the same answers, as proposals to validate."""
        return [Proposal.of(c) for c in self.classify(items)]
