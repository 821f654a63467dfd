"""The rule classifier's cues: weighted patterns per label, and the label order.

Data for ``profiles.voice.classify.rules`` (which scores a message against them).
Cues cover the lower-case, typo-ridden, mixed-language way operators type
(English first, with common German/Spanish/French/Chinese markers).
"""

from __future__ import annotations

import re

from profiles.voice.classify.labels import Label

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
COMMAND_VERBS = (
    "run|rerun|re-run|commit|push|pull|fix|show|open|check|deploy|restart|install|build|"
    "merge|rebase|try|retry|lint|format|delete|remove|rm|cat|ls|grep|print|list|add|create|"
    "update|bump|revert|continue|proceed|go|start|stop|kill|test|debug|look|read|write|"
    "generate|refactor|rename|move|clean|ship|release|tag|implement|change|replace|set|put|"
    "find|search|explain|describe|summari[sz]e|help|lanza|ejecuta|mach|starte|lance"
)

CUES: dict[Label, tuple[tuple[re.Pattern[str], float], ...]] = {
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
        # ``rules.score_text`` collapses whitespace first, so each ``\s*`` of the
        # plain form was at most one space: written so, a run of spaces handed to
        # the pattern directly costs linear time, not cubic
        (re.compile(r"^(a|an|the)? ?['\"`]?[\w -]{1,30}['\"`]? ?(=|:=) ?\S", _I), 3.0),
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
                rf"^\s*when(ever)? (you|i|we)\b[^?]{{0,60}},\s*({COMMAND_VERBS}|ask|use)\b", _I
            ),
            2.5,
        ),
        (re.compile(r"\b(all|every|any)\s+\w+\s+(must|should|goes|go)\b", _I), 1.5),
        (re.compile(r"\b(any|every|each) new\b|^\s*remember to\b|^\s*\w+ nothing\b", _I), 2.0),
        (re.compile(r"\bwithout asking\b|\bask me first\b", _I), 1.5),
    ),
    Label.command: (
        (re.compile(rf"^\s*(pls\s+|please\s+|now\s+|ok\s+|okay\s+)?({COMMAND_VERBS})\b", _I), 2.0),
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

IMPERATIVE_START = re.compile(rf"^\s*({COMMAND_VERBS})\b", _I)
