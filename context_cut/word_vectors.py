"""Word vectors: connect a question's words to the words the conversations use.

"What instruments does Melanie play?" is answered by "I've been playing my
violin" and "I started clarinet lessons": no word is shared, and a sentence
encoder does not put the question near those turns either. Each word of the
stored voice messages gets a vector of its own (the nerve's embedder run on the
word alone); a question word then finds the stored words closest to it
("instruments" -> violin, guitar, clarinet, piano), which ``context_cut.turns``
searches as a second, lower-weighted lexical round in the question's scope.

The table is a cache of the store's vocabulary, written by ``memgraph index``
(``sync_words``) as two plain files in the word-vector directory
(``context_cut.word_table``: the format, and why a pair is refused; a refused
pair is ignored with a one-line reason and rebuilt by the next ``sync_words``).
Question words not in the table are embedded in one batch and remembered for
the process (never written at query time: recall stays read-only).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_cut.embedders import Embedder, fold
from context_cut.word_table import (  # the table's files: context_cut.word_table
    WordTable,
    empty_table,
    is_word,
    load_table,
    read_table,
    write_table,
)
from memgraph.store.protocol import Store

if TYPE_CHECKING:
    from memgraph.home_dirs import StoreRef

MAX_WORDS = 100_000  # the most frequent words of the store, if it says more
_EMBED_BATCH = 256
_MEMO = 4096  # question-word vectors remembered per table
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Vocabulary:
    words: list[str]  # sorted
    df: list[int]  # texts each word is in
    texts: int


def vocabulary(texts: Iterable[str], limit: int = MAX_WORDS) -> Vocabulary:
    """The words of ``texts`` (folded, ``is_word``; the ``limit`` in most texts),
    sorted, with the number of texts each is in."""
    counts: Counter[str] = Counter()
    n = 0
    for text in texts:
        n += 1
        counts.update({w for w in _WORD.findall(fold(text)) if is_word(w)})
    kept = sorted(counts, key=lambda w: (-counts[w], w))[:limit]
    words = sorted(kept)
    return Vocabulary(words, [counts[w] for w in words], n)


def _unit(rows: Any) -> Any:
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.clip(norms, 1e-12, None)).astype(np.float32)


def np_rows(rows: Sequence[Sequence[float]], dimension: int) -> Any:
    import numpy as np

    return np.asarray(rows, dtype=np.float32).reshape(len(rows), dimension)


def _embed(embedder: Embedder, words: Sequence[str]) -> Any:
    rows: list[list[float]] = []
    for start in range(0, len(words), _EMBED_BATCH):
        rows += embedder.embed(list(words[start : start + _EMBED_BATCH]))
    return _unit(np_rows(rows, embedder.dimension))


def message_texts(store: Store) -> Iterator[str]:
    """The text of every live voice message (what the turn ranking searches)."""
    for node in store.iter_nodes("voice", "message"):
        if node.lifecycle in ("retired", "superseded", "forgotten"):
            continue
        yield node.claim or node.title


@dataclass
class WordSyncReport:
    words: int = 0
    embedded: int = 0
    reused: int = 0
    rebuilt: str | None = None  # why an unreadable table was replaced

    def line(self) -> str:
        text = f"word vectors: {self.words} words ({self.embedded} embedded, {self.reused} kept)"
        return text + (f"; rebuilt: {self.rebuilt}" if self.rebuilt else "")


def sync_words(
    texts: Iterable[str],
    embedder: Embedder,
    directory: Path,
    limit: int = MAX_WORDS,
    rebuild: bool = False,
) -> WordSyncReport:
    """Make the table the vocabulary of ``texts``: words already in it keep their
    vectors, new ones are embedded (``rebuild``: every one), gone ones dropped.
    Written only if it changed."""
    import numpy as np

    vocab = vocabulary(texts, limit)
    wanted = vocab.words
    old, reason = (
        (None, None) if rebuild else read_table(directory, embedder.name, embedder.dimension)
    )
    old = old or empty_table(embedder.name, embedder.dimension)
    report = WordSyncReport(words=len(wanted), rebuilt=reason)
    same = (old.words, old.df, old.texts) == (wanted, vocab.df, vocab.texts)
    if same and reason is None:
        report.reused = len(wanted)
        return report
    fresh = [w for w in wanted if w not in old.index]
    vectors = _embed(embedder, fresh) if fresh else old.matrix[:0]
    at = {w: i for i, w in enumerate(fresh)}
    matrix = np.zeros((len(wanted), embedder.dimension), dtype=np.float32)
    for i, w in enumerate(wanted):
        j = old.index.get(w)
        matrix[i] = old.matrix[j] if j is not None else vectors[at[w]]
    report.embedded, report.reused = len(fresh), len(wanted) - len(fresh)
    table = WordTable(embedder.name, embedder.dimension, wanted, matrix, vocab.df, vocab.texts)
    try:
        write_table(directory, table)
    except OSError as exc:  # a directory or a read-only file system where the pair goes
        from memgraph.errors import StoreError

        where = exc.filename2 or exc.filename or directory  # os.replace: (temp, target)
        raise StoreError(
            f"cannot write the word vectors at {where}: {exc.strerror or exc} "
            "(make it a writable directory of plain files and rerun `memgraph index`)"
        ) from None
    return report


@dataclass(frozen=True)
class Related:
    word: str  # a stored word
    similarity: float
    source: str  # the question word it is close to


def _variant(a: str, b: str) -> bool:
    """Two forms of one word ("instrument"/"instruments", "paint"/"painting"):
    the lexical side already matches those by stem."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= 4 and n >= min(len(a), len(b)) - 2


def related_words(
    table: WordTable,
    embedder: Embedder | None,
    terms: Sequence[str],
    *,
    threshold: float,
    per_term: int,
    skip: Iterable[str] = (),
    common: float = 1.0,
) -> list[Related]:
    """Stored words whose vector is within ``threshold`` cosine of a term's, at
    most ``per_term`` per term, best first (ties by word): never a term itself,
    a form of a term, a stopword, a word of ``skip`` or a common one (in more
    than ``common`` of the texts: "she", "maybe"; nor is a common term expanded).
    Terms the table lacks are embedded once (``embedder``; without one they are
    left out)."""
    import numpy as np

    most = common * table.texts if common < 1.0 else float("inf")
    wanted = [t for t in dict.fromkeys(terms) if is_word(t)]
    if not wanted or not table.words or per_term <= 0:
        return []
    todo = [t for t in wanted if t not in table.index and t not in table.memo]
    if todo and embedder is not None:
        if len(table.memo) + len(todo) > _MEMO:
            table.memo.clear()
        table.memo.update(zip(todo, _embed(embedder, todo), strict=True))
    rows, sources = [], []
    for t in wanted:
        i = table.index.get(t)
        if i is not None and table.df[i] > most:
            continue
        row = table.matrix[i] if i is not None else table.memo.get(t)
        if row is not None:
            rows.append(row)
            sources.append(t)
    if not rows:
        return []
    sims = table.matrix @ np.stack(rows).T  # (words, terms)
    banned = {*wanted, *skip}
    best: dict[str, Related] = {}
    for col, source in enumerate(sources):
        column = sims[:, col]
        # the best few, in order (more than ``per_term``: forms and names are skipped)
        k = min(len(column), per_term + len(banned) + 64)
        top = np.argpartition(-column, k - 1)[:k]
        order = sorted(top.tolist(), key=lambda i: (-float(column[i]), table.words[i]))
        taken = 0
        for i in order:
            sim = float(column[i])
            if sim < threshold or taken >= per_term:
                break
            word = table.words[i]
            if word in banned or table.df[i] > most or any(_variant(word, t) for t in wanted):
                continue
            taken += 1
            sim = round(sim, 5)
            held = best.get(word)
            if held is None or sim > held.similarity:
                best[word] = Related(word, sim, source)
    return sorted(best.values(), key=lambda r: (-r.similarity, r.word))


def words_dir_for(home: Path, store: StoreRef) -> Path:
    """Where the word vectors of ``store`` are read: its folder in
    ``<home>/word-vectors`` (``memgraph.home_dirs``; ``memgraph index`` writes
    there through ``prepared_dir``), the flat files of a home from before until then."""
    from memgraph.home_dirs import WORD_VECTORS, cache_dir

    return cache_dir(home, WORD_VECTORS, store)


def nerve_table(nerve: object) -> tuple[WordTable | None, Embedder | None, str | None]:
    """The word table of a nerve (its ``words_dir`` and ``embedder``), the embedder
    for question words it lacks, and why a table that is there could not be read."""
    directory = getattr(nerve, "words_dir", None)
    embedder = getattr(nerve, "embedder", None)
    if not isinstance(directory, Path) or not isinstance(embedder, Embedder):
        return None, None, None
    table, why = load_table(directory, embedder.name, embedder.dimension)
    return table, embedder, why


def related_for(
    nerve: object,
    terms: Sequence[str],
    names: Iterable[str],
    threshold: float,
    per_term: int,
    common: float = 1.0,
) -> tuple[list[str], str | None]:
    """(the stored words related to ``terms``, best first, by the nerve's word
    table; why the table could not be read, if it could not)."""
    table, embedder, why = nerve_table(nerve)
    if table is None:
        return [], why
    found = related_words(
        table, embedder, terms, threshold=threshold, per_term=per_term, skip=names, common=common
    )
    return [r.word for r in found], None


def prime(nerve: object, asked: str, terms: Sequence[str]) -> None:
    """Embed the nerve's next query ``asked`` together with the ``terms`` its word
    table lacks, in one batch (a batch costs about what one text does: the model's
    weights are read once): the words go to the table's memo, the query vector
    to the nerve's ``primed`` (its next ``search`` of ``asked`` takes it)."""
    table, embedder, _ = nerve_table(nerve)
    if table is None or embedder is None or not hasattr(nerve, "primed"):
        return
    todo = [t for t in dict.fromkeys(terms) if is_word(t)]
    todo = [t for t in todo if t not in table.index and t not in table.memo]
    if not todo:
        return
    vectors = embedder.embed([asked, *todo])
    if len(table.memo) + len(todo) > _MEMO:
        table.memo.clear()
    table.memo.update(zip(todo, _unit(np_rows(vectors[1:], embedder.dimension)), strict=True))
    nerve.primed = (asked, vectors[0])
