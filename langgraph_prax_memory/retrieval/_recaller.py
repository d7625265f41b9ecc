"""The three retrieval arms (dense, sparse, graph neighbourhood), run concurrently.

And the pipeline around them: intent weights → arms → weighted RRF → decay × boost → optional
rerank.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from typing import TYPE_CHECKING, Any

from qdrant_client.http import models

from langgraph_prax_memory.embeddings import Hubness, SparseTFEncoder
from langgraph_prax_memory.errors import BackendUnavailable, EmbeddingError, PraxMemoryError
from langgraph_prax_memory.retrieval._calibration import CosineScale
from langgraph_prax_memory.retrieval._evidence import (
    MIN_MEMORIES,
    QuestionTerms,
    best_of,
    off_subject,
    partial_cosines,
    people_of,
    query_names,
    term_weights,
    without_shared_names,
)
from langgraph_prax_memory.retrieval._features import (
    AbsentFields,
    SoleNamespaces,
    TermCounts,
    candidate_terms,
    filter_key,
    holds_any,
    kept_offsets,
    kept_stamp,
    lacks_any,
    lean_filter,
)
from langgraph_prax_memory.retrieval._feedback import expand_sparse, indexed_text
from langgraph_prax_memory.retrieval._intent import RetrievalConfig, arm_weights, query_phrases
from langgraph_prax_memory.retrieval._precision import expand_query, rerank_order
from langgraph_prax_memory.retrieval._recall import (
    RecallResult,
    assemble_hits,
    calibrate_hits,
    is_standing,
    ltm_filter,
    validity_filter,
)
from langgraph_prax_memory.vectors import QdrantVectorStore, StoredPoint, ids_condition, user_filter

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

__all__ = ["Recaller"]

logger = logging.getLogger(__name__)


class Recaller:
    """Hybrid recall for one memory: the arms, their fusion and the optional passes.

    Args:
        store: The vector store.
        dense: The dense embedder.
        sparse: The sparse encoder.
        graph: Returns the graph store (called lazily; ``None`` disables the graph arm).
        config: Weights, candidate depth and passes.
        halflife_days: Half-life of the decay factor.
        expansion_model: Chat model for query expansion (used when enabled).
        rerank_model: Chat model for the rerank pass (used when enabled).
        hubness: The model's hubness correction of the floor (from its measured scale;
            ``None``: the floor reads raw cosines).
        partial: ``(unrelated, floor, companion)`` of the model's *partial* cosines, a
            shared name's direction taken out (measured with its scale; ``None``: the raw
            scale).
    """

    def __init__(
        self,
        store: QdrantVectorStore,
        dense: Embeddings,
        sparse: SparseTFEncoder,
        graph: Callable[[], Any] | None,
        config: RetrievalConfig,
        *,
        halflife_days: float,
        expansion_model: BaseChatModel | None = None,
        rerank_model: BaseChatModel | None = None,
        hubness: Hubness | None = None,
        partial: tuple[float, float, float] | None = None,
    ) -> None:
        self.store = store
        self.dense = dense
        self.sparse = sparse
        self.graph = graph
        self.config = config
        self.halflife_days = halflife_days
        self.expansion_model = expansion_model
        self.rerank_model = rerank_model
        self.hubness = hubness
        #: ``(unrelated, floor, companion)`` of partial cosines given a shared name (the
        #: model's measured scale; ``None``: read on the raw scale)
        self.partial = partial
        # the keyword side and the graph arm of each recall (a few recalls at once)
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="prax-arm")
        # a graph lookup that outlived its recall's wait (a graph server that stopped
        # answering): while it runs, recall leaves the graph arm out rather than queue more
        self._late_graph: Future[list[StoredPoint]] | None = None
        self._late_lock = threading.Lock()
        # the dense arm reads vectors for the hubness correction (memories without kept dots)
        self._read_vectors = False
        # the user's document frequencies, kept between writes
        self._counts = TermCounts()
        # the filter's fields no memory holds yet (their conditions are left out)
        self._absent = AbsentFields()
        # the namespace conditions every memory of the user passes (they are left out)
        self._spaces = SoleNamespaces()

    def close(self) -> None:
        """Stop the arm threads (without waiting for a graph lookup that never answered)."""
        with self._late_lock:
            late = self._late_graph
        self._pool.shutdown(wait=late is None or late.done(), cancel_futures=True)

    @property
    def scale(self) -> CosineScale:
        """The embedding model's cosine scale, from the retrieval settings."""
        return CosineScale(
            unrelated=self.config.unrelated_cosine,
            floor=self.config.min_cosine,
            companion=self.config.companion_cosine,
        )

    # -- arms ---------------------------------------------------------------------------
    def dense_arm(
        self,
        user_id: str,
        text: str,
        n: int,
        flt: models.Filter,
        shared: Sequence[str] = (),
    ) -> list[StoredPoint]:
        """Cosine top-n; with expansion on, the union of the variants' hits by best rank.

        With a hubness correction each point carries its offset in ``extras["hubness"]``.
        ``shared``: names most of the user's memories hold; each point is then scored by its
        *partial* cosine to the question, the name's direction taken out of both
        (:func:`~langgraph_prax_memory.embeddings.partial_cosines`), and the arm is
        ordered by it: what every memory shares with the question lends none of them
        similarity.
        """
        queries = [text]
        if self.config.query_expansion:
            queries += expand_query(self.expansion_model, text, self.config.expansion_variants)
        # each variant is a question too: embedded as one (e5's and bge's query prefixes)
        vectors = [self.dense.embed_query(q) for q in queries]
        hub = self.hubness
        names = self.dense.embed_documents(list(shared)) if shared else []
        # the hubness offsets come from the dots the memories kept when written
        # (_features.kept_offsets); vectors are read for the names' partial cosines, or
        # while the last search found memories without a kept dot (written before them)
        want_vectors = bool(names) or (hub is not None and self._read_vectors)
        best: dict[str, tuple[int, float, StoredPoint]] = {}
        for vec in vectors:
            found = self.store.search_dense(
                user_id, vec, limit=n, flt=flt, with_vector=want_vectors
            )
            if names:
                have = [p for p in found if p.extras.get("vector") is not None]
                partial = dict(
                    zip(
                        (p.id for p in have),
                        partial_cosines(vec, [p.extras["vector"] for p in have], names),
                        strict=True,
                    )
                )
                found = [
                    dataclasses.replace(p, score=partial[p.id]) if p.id in partial else p
                    for p in found
                ]
                found.sort(key=lambda p: -(p.score or 0.0))
            for rank, p in enumerate(found):
                if p.id not in best or rank < best[p.id][0]:
                    best[p.id] = (rank, p.score or 0.0, p)
        ordered = [p for _, _, p in sorted(best.values(), key=lambda t: (t[0], -t[1]))][:n]
        if hub is None:
            return [dataclasses.replace(p, extras={}) for p in ordered] if want_vectors else ordered
        offsets = kept_offsets({p.id: p.payload for p in ordered}, hub)
        lacking = [p.id for p in ordered if p.id not in offsets]
        if not names:
            self._read_vectors = bool(lacking)
        have = ordered
        if lacking and not want_vectors:  # memories written without a kept dot: their vectors
            flt_ids = user_filter(user_id, ids_condition(lacking))
            have = self.store.scroll(user_id, flt=flt_ids, limit=len(lacking), with_vector=True)
        have = [p for p in have if p.id not in offsets and p.extras.get("vector") is not None]
        try:
            offsets.update(
                zip(
                    (p.id for p in have),
                    hub.offsets([p.extras["vector"] for p in have]),
                    strict=True,
                )
            )
        except ValueError as exc:  # e.g. a centroid of another width: the floor reads raw cosines
            logger.warning("hubness correction skipped: %s", exc)
            return [dataclasses.replace(p, extras={}) for p in ordered]
        return [
            dataclasses.replace(p, extras={"hubness": offsets[p.id]})
            if p.id in offsets
            else dataclasses.replace(p, extras={})
            for p in ordered
        ]

    def sparse_arm(self, user_id: str, text: str, n: int, flt: models.Filter) -> list[StoredPoint]:
        """TF-IDF top-n, with pseudo-relevance feedback when ``feedback_docs`` > 0.

        The first ``feedback_docs`` hits lend their terms to the query (``feedback_weight``)
        and the expanded query ranks the top-n. Feedback needs that many hits to learn from:
        with fewer, the few that matched are the answer, and their common words would give
        every other memory a keyword rank. If the second search fails, the plain one's order
        stands (its first ``feedback_docs`` hits: the plain search asks for no more than
        feedback reads, since each hit's payload costs the engine as much as the search).
        """
        query = self.sparse.embed_query(text)
        m = self.config.feedback_docs
        if m <= 0 or self.config.feedback_weight <= 0:
            return self.store.search_sparse(user_id, query, limit=n, flt=flt)
        first = self.store.search_sparse(user_id, query, limit=m, flt=flt)
        if len(first) < m:  # every memory that matched: the answer
            return first[:n]
        feedback = self.sparse.embed_documents([indexed_text(p.payload) for p in first[:m]])
        expanded = expand_sparse(query, feedback, self.config.feedback_weight)
        try:
            return self.store.search_sparse(user_id, expanded, limit=n, flt=flt)
        except BackendUnavailable as exc:
            logger.warning("sparse feedback search failed, keeping the plain order: %s", exc)
            return first[:n]

    def graph_arm(self, user_id: str, text: str, n: int, flt: models.Filter) -> list[StoredPoint]:
        """Memories linked (``entity_ids``) to the query's entities and their 1–2 hop neighbours.

        Ranked by hop distance (0 = an entity named in the query), then importance, then
        recency.
        """
        if self.graph is None:
            return []
        graph = self.graph()
        hops_of: dict[str, int] = {}
        for phrase in query_phrases(text, limit=self.config.graph_seed_limit):
            for entity in graph.search_entities(user_id, phrase, limit=3):
                if hops_of.get(entity.id, 99) > 0:
                    hops_of[entity.id] = 0
                for nb in graph.get_neighbours(
                    user_id, entity.name, hops=self.config.graph_hops, limit=25
                ):
                    if nb.hops < hops_of.get(nb.entity.id, 99):
                        hops_of[nb.entity.id] = nb.hops
        if not hops_of:
            return []
        linked = models.FieldCondition(key="entity_ids", match=models.MatchAny(any=sorted(hops_of)))
        scoped = models.Filter(  # the caller's should (the standing-fact filter) is kept
            must=[*(flt.must or []), linked],  # type: ignore[list-item,misc]
            must_not=flt.must_not,
            should=flt.should,
        )
        points = self.store.scroll(user_id, flt=scoped, limit=max(n * 5, 50))

        def hop(p: StoredPoint) -> int:
            return min((hops_of.get(e, 99) for e in p.payload.get("entity_ids") or []), default=99)

        def key(p: StoredPoint) -> tuple[int, float, float]:
            return (
                hop(p),
                -float(p.payload.get("importance", 0.5)),
                -float(p.payload.get("created_ts", 0.0)),
            )

        # proximity as the arm's score: 1 for a named entity, ½ one hop away, ⅓ two hops
        return [
            dataclasses.replace(p, score=1.0 / (1 + hop(p))) for p in sorted(points, key=key)[:n]
        ]

    # -- evidence -----------------------------------------------------------------------
    def terms_of(self, point: StoredPoint) -> set[str]:
        """A memory's keyword terms as its sparse vector has them (its context included).

        Read from the terms it was written with (:func:`._features.candidate_terms`).
        """
        return candidate_terms(point.payload, self.sparse.tokens)

    def term_counts(
        self, user_id: str, terms: set[str], flt: models.Filter
    ) -> tuple[int, dict[str, int]]:
        """How many memories ``flt`` selects, and how many of them hold each term.

        Counted inside the engine (the memories' stored ``terms``): a term every memory
        holds weighs 0 (:func:`~langgraph_prax_memory.retrieval._evidence.term_weights`).
        Counts are kept until the store is next written to, a reinforcing recall aside
        (:class:`._features.TermCounts`, :func:`._features.kept_stamp`).
        A count that fails gives ``(0, {})``: every term weighs 1 (the plain share).
        """
        if not terms:
            return 0, {}
        try:
            key = (user_id, filter_key(flt))
            writes = kept_stamp(self.store, key[1])
            total, known = self._counts.known(key, writes, terms)
            if total is None:
                total = self.store.count(user_id, flt)
            if total < MIN_MEMORIES:
                self._counts.keep(key, writes, total, {})
                return total, {}
            fresh = {
                t: self.store.count(user_id, _with_term(flt, t)) for t in terms if t not in known
            }
            self._counts.keep(key, writes, total, fresh)
            return total, {**known, **fresh}
        except Exception as exc:  # the counts only weigh the words: never fail a recall
            logger.warning("term counts unavailable, every word weighs 1: %s", exc)
            return 0, {}

    def _evidence(self, point: StoredPoint, question: QuestionTerms) -> _Evidence:
        terms = self.terms_of(point)
        return _Evidence(
            terms,
            str(point.payload.get("content") or ""),
            question.coverage(terms),
            question.pairs(terms),
        )

    def _keyword_side(
        self,
        user_id: str,
        text: str,
        n: int,
        flt: models.Filter,
        query_terms: set[str],
        total: int,
        frequencies: dict[str, int],
    ) -> _KeywordSide:
        """The keyword arm, the question's other words' counts, its candidates' evidence."""
        errors: dict[str, str] = {}
        points = _settle("sparse", lambda: self.sparse_arm(user_id, text, n, flt), errors)
        rest = query_terms - set(frequencies)
        if rest:
            more_total, more = self.term_counts(user_id, rest, flt)  # never raises
            total = max(total, more_total)
            frequencies = {**frequencies, **more}
        weights = term_weights(frequencies, total) if total >= MIN_MEMORIES else {}
        question = QuestionTerms(query_terms, weights)
        evidence: dict[str, _Evidence] = {}
        for p in points or []:
            if p.id not in evidence:
                evidence[p.id] = self._evidence(p, question)
        return _KeywordSide(points, errors, question, evidence)

    # -- pipeline -----------------------------------------------------------------------
    def recall(
        self,
        user_id: str,
        text: str,
        *,
        k: int,
        now: datetime,
        tags: Sequence[str] | None = None,
        flt: models.Filter | None = None,
        include_history: bool = False,
        as_of: datetime | None = None,
    ) -> RecallResult:
        """Run the arms concurrently, fuse and rank; failed arms are reported, not raised.

        ``flt`` replaces the long-term-memory filter (the store's namespace prefix and value
        filters); it must be pinned to ``user_id`` and runs inside the engine on every arm.
        Superseded memories are left out unless ``include_history`` (see
        :func:`validity_filter`; ``as_of`` recalls what was current at that moment).
        """
        started = time.perf_counter()
        intent, weights = arm_weights(text, self.config)
        n = max(self.config.min_candidates, self.config.candidates_factor * k)
        if self.config.rerank:
            n = max(n, self.config.rerank_top)
        if flt is None:
            flt = ltm_filter(user_id, tags=tags)
        flt = validity_filter(flt, include_history=include_history, as_of=as_of)
        # conditions every memory passes (no TTL or superseded memory in the collection yet)
        # cost the engine per memory: left out until the next write
        flt, left_out = lean_filter(flt, self._absent.of(self.store))
        flt, sole = self._spaces.lean(self.store, user_id, flt)
        # what the user's memories all share (their name) tells none apart: the keyword
        # evidence weighs each word by how few memories hold it, and the dense and graph
        # arms read the question without a name most of them hold
        query_terms = set(self.sparse.tokens(text))
        # the names' counts decide how the dense arm reads the question: counted first (a
        # question without a name waits for nothing)
        name_terms = {t for n in query_names(text) for t in self.sparse.tokens(n)}
        total, frequencies = self.term_counts(user_id, name_terms & query_terms, flt)
        meaning, shared = without_shared_names(text, self.sparse.tokens, frequencies, total)
        # the engine holds the GIL through each search and count: the keyword side (its arm,
        # the other words' counts, its candidates' evidence) runs on one thread while this
        # one embeds the question (the model releases the GIL), then searches by it
        keyword = self._pool.submit(
            self._keyword_side, user_id, text, n, flt, query_terms, total, frequencies
        )
        errors: dict[str, str] = {}
        graph_job: Future[list[StoredPoint]] | None = None
        if self.graph is not None:
            with self._late_lock:
                late = self._late_graph
                if late is not None and not late.done():
                    errors["graph"] = (
                        "graph arm left out: an earlier graph lookup has not answered yet"
                    )
                else:
                    self._late_graph = None
                    graph_job = self._pool.submit(self.graph_arm, user_id, meaning, n, flt)
        dense = _settle("dense", lambda: self.dense_arm(user_id, text, n, flt, shared), errors)
        side = keyword.result()  # never raises: a failed arm is in its errors
        errors.update(side.errors)
        arms: dict[str, list[StoredPoint]] = {}
        if dense is not None:
            arms["dense"] = dense
        if side.points is not None:
            arms["sparse"] = side.points
        if graph_job is not None:
            try:
                arms["graph"] = graph_job.result(timeout=self.config.graph_timeout)
            except FutureTimeout:
                with self._late_lock:
                    self._late_graph = graph_job
                logger.warning(
                    "graph arm gave no answer within %.1f s; recalling without it",
                    self.config.graph_timeout,
                )
                errors["graph"] = f"graph arm gave no answer within {self.config.graph_timeout:g} s"
            except (EmbeddingError, BackendUnavailable, PraxMemoryError) as exc:
                errors["graph"] = str(exc)
            except Exception as exc:  # an arm never fails the recall
                logger.warning("retrieval arm graph failed: %s", exc)
                errors["graph"] = f"{type(exc).__name__}: {exc}"
        if "dense" in arms and ("'" in text or "\u2019" in text):  # a possessive: issue 37
            # "Ingrid's daughter" is Sigrid when her memories say so: read that way too
            texts = {p.id: str(p.payload.get("content") or "") for a in arms.values() for p in a}
            for said, name in people_of(text, texts):
                read = functools.partial(self.dense_arm, user_id, said, n, flt, [name])
                arms["dense"] = best_of(arms["dense"], _settle("dense", read, {}) or [])
        if left_out or sole:  # a write between the checks and a search: as if it came after
            arms = {
                a: [
                    p
                    for p in ps
                    if not holds_any(p.payload, left_out) and not lacks_any(p.payload, sole)
                ]
                for a, ps in arms.items()
            }
        errors = {a: errors[a] for a in ("dense", "sparse", "graph") if a in errors}
        if not arms or all(name in errors for name in ("dense", "sparse")):
            raise BackendUnavailable(
                "recall failed: " + "; ".join(f"{a}: {e}" for a, e in errors.items())
            )
        depth = max(k, self.config.rerank_top) if self.config.rerank else k
        partial_scale = (
            CosineScale(unrelated=self.partial[0], floor=self.partial[1], companion=self.partial[2])
            if shared and self.partial is not None
            else None
        )
        coverage: dict[str, float] = {}
        pairs: dict[str, float] = {}  # decides the first place (see assemble_hits)
        doc_terms: dict[str, set[str]] = {}
        contents: dict[str, str] = {}
        for points in arms.values():  # every candidate: coverage is absolute evidence
            for p in points:
                if p.id not in coverage:
                    ev = side.evidence.get(p.id) or self._evidence(p, side.question)
                    doc_terms[p.id], contents[p.id] = ev.terms, ev.content
                    coverage[p.id], pairs[p.id] = ev.coverage, ev.pairs
        # the memories holding the shared name: their dense scores are partial cosines
        named = {t for n in shared for t in self.sparse.tokens(n)} if partial_scale else set()
        holding = {i for i, ts in doc_terms.items() if not named.isdisjoint(ts)} if named else set()
        hits = assemble_hits(
            arms,
            weights,
            now=now,
            halflife_days=self.halflife_days,
            k=depth,
            rrf_k=self.config.rrf_k,
            decay_mode=self.config.decay_mode,
            recency_weight=self.config.recency_weight,
            fusion=self.config.fusion,
            importance_weight=self.config.importance_weight,
            evidence_spread=self.config.evidence_spread,
            unrelated_cosine=self.config.unrelated_cosine,
            depth=n,
            min_cosine=self.config.min_cosine,
            coverage=coverage,
            companion_cosine=self.config.companion_cosine,
            head_coverage=pairs,
            hubness={
                p.id: p.extras["hubness"] for p in arms.get("dense", []) if "hubness" in p.extras
            },
            off_subject=off_subject(text, contents, doc_terms),
            # a question naming the person most memories name: the dense scores of the
            # memories holding the name are partial cosines, read on their own measured
            # scale (no hubness: it is of raw cosines); the others' on the model's
            calibration=partial_scale,
            calibrated_ids=holding,
        )
        if self.config.rerank and len(hits) > 1:
            order = rerank_order(self.rerank_model, text, [h.memory.content for h in hits])
            hits = [hits[i] for i in order]
        cfg = self.config
        hits = calibrate_hits(
            hits[:k],
            # the companion bar is a cosine of unrelated texts; every memory that shares the
            # question's name with it sits near that bar however unrelated it is: with a
            # shared name, the bar of partial cosines (measured), else none
            partial_scale
            or (dataclasses.replace(self.scale, companion=None) if shared else self.scale),
            # episodes pass the floor on their own; a standing fact scored just under it
            # may join a relevant hit (the companion bar)
            lambda m: is_standing(
                m, tags=cfg.profile_tags, min_importance=cfg.profile_min_importance
            ),
        )
        by_id = {p.id: p for points in arms.values() for p in points}
        return RecallResult(
            hits=hits,
            points={h.memory.id: by_id[h.memory.id] for h in hits},
            arms={a: len(p) for a, p in arms.items()},
            errors=errors,
            weights=weights,
            intent=intent,
            elapsed_ms=(time.perf_counter() - started) * 1000,
            shared_names=shared,
        )


@dataclasses.dataclass(frozen=True)
class _Evidence:
    """What the ranking reads of one candidate beside its scores."""

    terms: set[str]
    content: str
    coverage: float
    pairs: float


@dataclasses.dataclass(frozen=True)
class _KeywordSide:
    """What the keyword side of a recall found (:meth:`Recaller._keyword_side`)."""

    points: list[StoredPoint] | None
    errors: dict[str, str]
    question: QuestionTerms
    evidence: dict[str, _Evidence]


def _settle(
    name: str, arm: Callable[[], list[StoredPoint]], errors: dict[str, str]
) -> list[StoredPoint] | None:
    """Run ``arm``; a failure is recorded in ``errors`` (an arm never fails the recall)."""
    try:
        return arm()
    except (EmbeddingError, BackendUnavailable, PraxMemoryError) as exc:
        errors[name] = str(exc)
    except Exception as exc:
        logger.warning("retrieval arm %s failed: %s", name, exc)
        errors[name] = f"{type(exc).__name__}: {exc}"
    return None


def _with_term(flt: models.Filter, term: str) -> models.Filter:
    """``flt`` narrowed to memories whose stored terms hold ``term``.

    The term's condition comes first: the engine then starts from the term's index entry
    (the memories holding it) and checks the rest on those, not the other way round (the
    same count in about 60% of the time at 10k memories).
    """
    must = list(flt.must) if isinstance(flt.must, list) else [flt.must] if flt.must else []
    must.insert(0, models.FieldCondition(key="terms", match=models.MatchValue(value=term)))
    return models.Filter(must=must, must_not=flt.must_not, should=flt.should)
