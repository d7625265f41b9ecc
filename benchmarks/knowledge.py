"""Knowledge namespace: ingestion throughput and knowledge_search latency at 10k concepts.

Measured through the public API (``KnowledgeBase``) on the embedded stack — SQLite graph file,
the embedded Qdrant engine on disk (qdrant-edge by default), the offline MiniLM model
(``--embeddings hash`` swaps in the test suite's hashed bag-of-words embedder to isolate the
rest):

* rule-based document ingestion, concepts/s: synthetic markdown papers, each chunked,
  extracted, merged into the graph and indexed in ``prax_knowledge_concepts``;
* codebase ingestion, concepts/s: tree-sitter over this repository's ``langgraph_prax_memory``;
* ``knowledge_search`` latency (p50/p95) at 10k concepts: hybrid (keyword + semantic, RRF)
  and keyword-only.

Each path is also run with the vector side off (``hybrid=False``) in the same run; the
"ratio" column is hybrid / keyword-only. ``--neo4j-uri bolt://…`` repeats the search timing
on a Neo4j server. No assertions on time: this prints tables.

    .venv/bin/python benchmarks/knowledge.py            # ~2-4 minutes on 2 cores
    .venv/bin/python benchmarks/knowledge.py --quick    # 2k concepts, fewer documents
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentiles, print_table  # noqa: E402
from langgraph_prax_memory import MemoryConfig, PraxMemory  # noqa: E402
from langgraph_prax_memory.knowledge import ConceptInput, KnowledgeBase  # noqa: E402

PACKAGE = ROOT / "langgraph_prax_memory"
_FIELDS = ["Retrieval", "Memory", "Graph", "Attention", "Fusion", "Embedding", "Ranking", "Agent"]
_PARTS = ["Dense", "Sparse", "Hybrid", "Temporal", "Causal", "Neural", "Latent", "Episodic"]
_VERBS = ["uses", "is based on", "outperforms", "depends on", "extends", "is part of"]


def synthetic_paper(i: int, rng: random.Random) -> str:
    """A markdown 'paper' with headings, named methods, acronyms and relations."""
    title = f"{rng.choice(_PARTS)} {rng.choice(_FIELDS)} Study {i}"
    lines = [f"# {title}", ""]
    for s in range(3):
        sec = f"{rng.choice(_PARTS)} {rng.choice(_FIELDS)} Section {i}-{s}"
        lines += [f"## {sec}", ""]
        for _ in range(4):
            a = f"{rng.choice(_PARTS)} {rng.choice(_FIELDS)} Method {rng.randrange(400)}"
            b = f"{rng.choice(_PARTS)} {rng.choice(_FIELDS)} Model {rng.randrange(400)}"
            acr = "".join(w[0] for w in a.split()[:2]) + str(rng.randrange(90))
            lines.append(
                f"{a} {rng.choice(_VERBS)} {b}. The `{acr}` variant is described in detail. "
                f"It is evaluated on **{rng.choice(_FIELDS)} Benchmark {rng.randrange(50)}**."
            )
        lines.append("")
    return "\n".join(lines)


def make_memory(data_dir: Path, embeddings: str) -> PraxMemory:
    config = MemoryConfig(data_dir=data_dir)
    if embeddings == "hash":
        from tests.fakes import HashEmbeddings

        return PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    return PraxMemory(config)


def bench_documents(mem: PraxMemory, docs: list[str], hybrid: bool) -> tuple[int, float]:
    kb = KnowledgeBase(mem, hybrid=hybrid)
    user = f"bench-{uuid.uuid4()}"
    start = time.perf_counter()
    concepts = sum(kb.ingest_document(user, d, namespace="papers").concepts for d in docs)
    elapsed = time.perf_counter() - start
    kb.delete_user(user)
    return concepts, elapsed


def bench_codebase(mem: PraxMemory, hybrid: bool) -> tuple[int, float]:
    kb = KnowledgeBase(mem, hybrid=hybrid)
    user = f"bench-{uuid.uuid4()}"
    start = time.perf_counter()
    concepts = kb.ingest_codebase(user, PACKAGE).concepts
    elapsed = time.perf_counter() - start
    kb.delete_user(user)
    return concepts, elapsed


def load_concepts(kb: KnowledgeBase, user: str, n: int, rng: random.Random) -> None:
    batch: list[ConceptInput] = []
    for i in range(n):
        name = f"{rng.choice(_PARTS)} {rng.choice(_FIELDS)} Method {i}"
        batch.append(
            ConceptInput(
                name=name,
                description=f"{name} {rng.choice(_VERBS)} {rng.choice(_PARTS).lower()} "
                f"{rng.choice(_FIELDS).lower()} signals for {rng.choice(_FIELDS).lower()}.",
                importance=rng.random(),
            )
        )
        if len(batch) == 1000:
            kb.store.write_batch(user, "papers", batch)
            batch = []
    if batch:
        kb.store.write_batch(user, "papers", batch)
    kb.reindex_user_concepts(user)


def bench_search(kb: KnowledgeBase, user: str, queries: list[str]) -> tuple[float, float]:
    samples = []
    for q in queries:
        start = time.perf_counter()
        kb.search(user, q, k=10)
        samples.append(time.perf_counter() - start)
    return percentiles(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--embeddings", choices=["offline", "hash"], default="offline")
    parser.add_argument("--neo4j-uri", default=None)
    args = parser.parse_args()
    rng = random.Random(7)
    n_docs = 20 if args.quick else 60
    n_concepts = 2000 if args.quick else 10_000
    queries = [
        f"{rng.choice(_PARTS).lower()} {rng.choice(_FIELDS).lower()} method"
        for _ in range(30 if args.quick else 100)
    ]
    docs = [synthetic_paper(i, rng) for i in range(n_docs)]
    with tempfile.TemporaryDirectory() as tmp:
        mem = make_memory(Path(tmp) / "data", args.embeddings)
        mem.embeddings.embed_documents(["warm up the model"])
        rows = []
        for label, fn in (
            (
                f"rule-based documents ({n_docs} markdown papers)",
                lambda h: bench_documents(mem, docs, h),
            ),
            ("codebase (tree-sitter, langgraph_prax_memory/)", lambda h: bench_codebase(mem, h)),
        ):
            c_h, t_h = fn(True)
            c_k, t_k = fn(False)
            rows.append(
                [
                    label,
                    str(c_h),
                    f"{c_h / t_h:,.0f}",
                    f"{c_k / t_k:,.0f}",
                    f"{(c_h / t_h) / (c_k / t_k):.2f}",
                ]
            )
        print_table(
            f"Ingestion throughput (embeddings: {args.embeddings})",
            ["path", "concepts", "hybrid concepts/s", "graph-only concepts/s", "ratio"],
            rows,
        )
        kb = KnowledgeBase(mem)
        user = f"bench-{uuid.uuid4()}"
        start = time.perf_counter()
        load_concepts(kb, user, n_concepts, rng)
        load_s = time.perf_counter() - start
        h50, h95 = bench_search(kb, user, queries)
        keyword_kb = KnowledgeBase(mem, hybrid=False)
        k50, k95 = bench_search(keyword_kb, user, queries)
        srows = [
            ["sqlite + qdrant embedded", "hybrid", f"{h50:.2f}", f"{h95:.2f}", f"{h50 / k50:.2f}"],
            ["sqlite", "keyword only", f"{k50:.2f}", f"{k95:.2f}", "1.00"],
        ]
        if args.neo4j_uri:
            from langgraph_prax_memory.graph import Neo4jGraphStore
            from langgraph_prax_memory.knowledge import Neo4jKnowledgeStore

            graph = Neo4jGraphStore(args.neo4j_uri)
            nkb = KnowledgeBase(mem, store=Neo4jKnowledgeStore(graph), hybrid=False)
            nuser = f"bench-{uuid.uuid4()}"
            load_concepts(nkb, nuser, n_concepts, rng)
            n50, n95 = bench_search(nkb, nuser, queries)
            srows.append(["neo4j", "keyword only", f"{n50:.2f}", f"{n95:.2f}", f"{n50 / k50:.2f}"])
            nkb.delete_user(nuser)
            graph.close()
        print_table(
            f"knowledge_search latency at {n_concepts:,} concepts, k=10 "
            f"({len(queries)} queries; load + index took {load_s:.1f} s)",
            ["backend", "arms", "p50 ms", "p95 ms", "p50 vs sqlite keyword"],
            srows,
        )
        kb.delete_user(user)
        mem.close()


if __name__ == "__main__":
    main()
