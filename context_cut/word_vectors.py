"""Word vectors: connect a question's words to the words the conversations use.

"What instruments does Melanie play?" is answered by "I've been playing my
violin" and "I started clarinet lessons": no word is shared, and a sentence
encoder does not put the question near those turns either. Each word of the
stored voice messages gets a vector of its own (the nerve's embedder run on the
word alone); a question word then finds the stored words closest to it
("instruments" -> violin, guitar, clarinet, piano), which ``context_cut.turns``
searches as a second, lower-weighted lexical round in the question's scope.

The table is a cache of the store's vocabulary, written by ``memgraph index``
(``sync_words``) as two plain files in the word-vector directory, one pair per
model + dimension:

- ``<model>-<dim>.words``: a header line ``memgraph-word-vectors 2 <model> <dim>
  <count> <texts>`` (format 2; ``texts``: the messages counted), then one
  ``word<TAB>df`` a line (folded, sorted; ``df``: the messages the word is in);
- ``<model>-<dim>.f32``: ``count x dim`` little-endian float32, unit rows, in
  the order of the words.

A table that does not read back whole (a truncated or foreign file, a count that
does not match, a duplicate word, non-finite numbers) is ignored with a one-line
reason, and the next ``sync_words`` rebuilds it. Question words not in the table
are embedded in one batch and remembered for the process (never written at
query time: recall stays read-only).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from context_cut.candidates import STOPWORDS
from context_cut.embedders import Embedder, fold
from memgraph.store.protocol import Store

MAGIC = "memgraph-word-vectors"
VERSION = 2
MAX_WORDS = 100_000  # the most frequent words of the store, if it says more
MIN_LEN, MAX_LEN = 3, 24
_EMBED_BATCH = 256
_MEMO = 4096  # question-word vectors remembered per table
_WORD = re.compile(r"\w+", re.UNICODE)


def is_word(word: str) -> bool:
    """A word worth a vector: letters only, 3-24 of them, not a stopword."""
    return MIN_LEN <= len(word) <= MAX_LEN and word.isalpha() and word not in STOPWORDS


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


def _slug(model: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_") or "model"


def table_paths(directory: Path, model: str, dimension: int) -> tuple[Path, Path]:
    base = f"{_slug(model)}-{dimension}"
    return directory / f"{base}.words", directory / f"{base}.f32"


@dataclass
class WordTable:
    """Words and their unit vectors (``matrix[i]`` is ``words[i]``)."""

    model: str
    dimension: int
    words: list[str]
    matrix: Any  # numpy float32, (len(words), dimension)
    df: list[int] = field(default_factory=list)  # texts each word is in
    texts: int = 0  # texts the vocabulary was counted over
    index: dict[str, int] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict)  # question words embedded

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.df) != len(self.words):
            self.df = [0] * len(self.words)


def empty_table(model: str, dimension: int) -> WordTable:
    import numpy as np

    return WordTable(model, dimension, [], np.zeros((0, dimension), dtype=np.float32))


def read_table(directory: Path, model: str, dimension: int) -> tuple[WordTable | None, str | None]:
    """(table, None), or (None, None) when there is none yet, or (None, reason)
    when the files are there but do not read back whole."""
    import numpy as np

    words_path, f32_path = table_paths(directory, model, dimension)
    if not words_path.exists() and not f32_path.exists():
        return None, None
    try:
        raw = words_path.read_bytes()
        size = f32_path.stat().st_size
    except OSError as exc:
        where = Path(exc.filename).name if exc.filename else words_path.name
        return None, f"{where}: {exc.strerror or type(exc).__name__}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"{words_path.name}: not UTF-8"
    lines = text.split("\n")
    head = lines[0].split(" ")
    if len(head) != 6 or head[0] != MAGIC or head[1] != str(VERSION):
        return None, f"{words_path.name}: not a word-vector list (bad header)"
    if head[2] != _slug(model) or head[3] != str(dimension):
        return None, f"{words_path.name}: written for another model or dimension"
    if not head[4].isdigit() or not head[5].isdigit():
        return None, f"{words_path.name}: not a word-vector list (bad header)"
    count, texts = int(head[4]), int(head[5])
    rows = lines[1:]
    if rows and rows[-1] == "":
        rows.pop()
    if len(rows) != count:
        return None, f"{words_path.name}: {len(rows)} words, header says {count}"
    if size != count * dimension * 4:
        return None, f"{f32_path.name}: {size} bytes, {count} words need {count * dimension * 4}"
    pairs = [r.split("\t") for r in rows]
    if not all(len(p) == 2 and is_word(p[0]) and p[1].isdigit() for p in pairs):
        return None, f"{words_path.name}: malformed word lines"
    words, df = [p[0] for p in pairs], [int(p[1]) for p in pairs]
    if len(set(words)) != count:
        return None, f"{words_path.name}: duplicate words"
    matrix = np.fromfile(f32_path, dtype="<f4", count=count * dimension)
    if matrix.size != count * dimension:
        return None, f"{f32_path.name}: shorter than its size said"
    matrix = matrix.reshape(count, dimension).astype(np.float32, copy=False)
    if not np.isfinite(matrix).all():
        return None, f"{f32_path.name}: non-finite numbers"
    return WordTable(model, dimension, words, matrix, df, texts), None


# loaded tables, per file pair, while their files stay the same
_LOADED: dict[Path, tuple[tuple[int, int, int, int], WordTable]] = {}


def load_table(directory: Path, model: str, dimension: int) -> tuple[WordTable | None, str | None]:
    """``read_table``, remembered for the process while the files are unchanged."""
    words_path, f32_path = table_paths(directory, model, dimension)
    try:
        a, b = words_path.stat(), f32_path.stat()
    except OSError:
        _LOADED.pop(words_path, None)
        return read_table(directory, model, dimension)
    key = (a.st_mtime_ns, a.st_size, b.st_mtime_ns, b.st_size)
    held = _LOADED.get(words_path)
    if held is not None and held[0] == key:
        return held[1], None
    table, reason = read_table(directory, model, dimension)
    if table is not None:
        _LOADED[words_path] = (key, table)
    return table, reason


def write_table(directory: Path, table: WordTable) -> None:
    """Both files, each replaced atomically; the matrix first (a reader that sees
    a new list with an old matrix finds the sizes differ and ignores the pair)."""
    import numpy as np

    from memgraph.fileio import atomic_write_bytes, atomic_write_text

    words_path, f32_path = table_paths(directory, table.model, table.dimension)
    data = np.ascontiguousarray(table.matrix, dtype="<f4").tobytes()
    atomic_write_bytes(f32_path, data, durable=False)
    head = f"{MAGIC} {VERSION} {_slug(table.model)} {table.dimension} {len(table.words)}"
    lines = [
        f"{head} {table.texts}",
        *(f"{w}\t{d}" for w, d in zip(table.words, table.df, strict=True)),
    ]
    atomic_write_text(words_path, "\n".join(lines) + "\n", durable=False)


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
    texts: Iterable[str], embedder: Embedder, directory: Path, limit: int = MAX_WORDS
) -> WordSyncReport:
    """Make the table the vocabulary of ``texts``: words already in it keep their
    vectors, new ones are embedded, gone ones dropped. Written only if it changed."""
    import numpy as np

    vocab = vocabulary(texts, limit)
    wanted = vocab.words
    old, reason = read_table(directory, embedder.name, embedder.dimension)
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
    write_table(directory, table)
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


def words_dir_for(home: Path) -> Path:
    """Where ``memgraph index`` keeps the word vectors of the store at ``home``."""
    return Path(os.fspath(home)) / "word-vectors"


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
