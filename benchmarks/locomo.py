"""Turn-level LoCoMo retrieval through the product's API, with baselines measured in the same run.

Protocol: ``../shared/bench/README.md``. Every dialogue turn is a memory (``"speaker: text"``,
created at its session's time); each conversation is its own user; recall is evaluated at the
conversation's last session time. ``prax`` stores each turn with the turn it answers as its
``context`` (what a conversation memory gets); ``prax (no context)`` stores the bare turns.
Baselines: BM25 (k1=1.5, b=0.75, stop words removed), dense cosine with the same offline model,
plain RRF(BM25, dense) with k=60, and BM25 over the same turn + previous-turn text.

Run: .venv/bin/python -m benchmarks.locomo [--data PATH] [--latency-sizes 1000 10000 100000]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks._common import BM25, load_embeddings, percentiles, print_table, synthetic_texts
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings, ResilientEmbeddings
from langgraph_prax_memory.embeddings._sparse import STOP_WORDS

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Turn:
    dia_id: str
    text: str
    at: datetime
    speaker: str = ""
    said: str = ""


@dataclass
class Question:
    text: str
    evidence: set[str]
    category: int


def parse_time(raw: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → an aware UTC datetime."""
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def repair_evidence(raw: Sequence[str], known: set[str]) -> set[str]:
    """Split multi-id strings, fix malformed ids, drop ids that name no turn."""
    out: set[str] = set()
    for item in raw:
        for part in re.split(r"[;,\s]+", item):
            m = re.match(r"^D:?(\d+):0*(\d+)$", part.strip())
            if m:
                did = f"D{int(m.group(1))}:{int(m.group(2))}"
                if did in known:
                    out.add(did)
    return out


def load(path: Path) -> list[tuple[str, list[Turn], list[Question]]]:
    """Conversations as (sample_id, turns, scored questions)."""
    out = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        turns: list[Turn] = []
        for key in sorted(
            (k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])
        ):
            at = parse_time(conv[f"{key}_date_time"])
            for i, turn in enumerate(conv[key]):
                # turns of a session keep their order: one second apart
                turns.append(
                    Turn(
                        turn["dia_id"],
                        f"{turn['speaker']}: {turn['text']}",
                        at + timedelta(seconds=i),
                        turn["speaker"],
                        turn["text"],
                    )
                )
        known = {t.dia_id for t in turns}
        questions = []
        for qa in sample["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            ev = repair_evidence(qa.get("evidence") or [], known)
            if ev:
                questions.append(Question(qa["question"], ev, int(qa["category"])))
        out.append((sample["sample_id"], turns, questions))
    return out


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[int]:
    score: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for r, idx in enumerate(ranking, 1):
            score[idx] += 1 / (k + r)
    return sorted(score, key=lambda i: -score[i])


class Scores:
    """Recall@k and any@k, overall and per category."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, dict[int, float], dict[int, bool]]] = []
        self.latency: list[float] = []

    def add(self, q: Question, ranked: Sequence[str], seconds: float) -> None:
        rec = {k: len(q.evidence & set(ranked[:k])) / len(q.evidence) for k in KS}
        anyk = {k: bool(q.evidence & set(ranked[:k])) for k in KS}
        self.rows.append((q.category, rec, anyk))
        self.latency.append(seconds)

    def summary(self, cat: int | None = None) -> dict[str, float]:
        rows = [r for r in self.rows if cat is None or r[0] == cat]
        out = {f"R@{k}": sum(r[1][k] for r in rows) / len(rows) for k in KS}
        out.update({f"any@{k}": sum(r[2][k] for r in rows) / len(rows) for k in KS})
        return out


def previous_turns(turns: Sequence[Turn]) -> list[str | None]:
    """Each turn's previous turn in the same session (``None`` for a session's first turn)."""
    out: list[str | None] = []
    for i, t in enumerate(turns):
        prev = turns[i - 1] if i else None
        same = prev is not None and prev.dia_id.split(":")[0] == t.dia_id.split(":")[0]
        out.append(prev.text if same and prev is not None else None)
    return out


def sessions(turns: Sequence[Turn]) -> list[list[Turn]]:
    """The turns grouped by session (``D3:7`` → session 3), in order."""
    out: list[list[Turn]] = []
    for t in turns:
        if out and out[-1][0].dia_id.split(":")[0] == t.dia_id.split(":")[0]:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def run_locomo(
    path: Path,
    data_dir: Path,
    embeddings: Embeddings | None = None,
    dimension: int = 384,
) -> dict[str, Scores]:
    """Ingest every conversation through ``PraxMemory`` and score each method's ranking.

    ``embeddings`` (of width ``dimension``) replaces the packaged MiniLM for the product and
    the dense baselines alike; ``None`` measures the default model.

    ``prax`` stores each session with ``remember_conversation``: the turn is the memory's
    content and the turn it answers (the previous turn of its session) its ``context``.
    ``prax (no context)`` stores the bare turns, and ``BM25 (turn + previous)`` gives BM25
    the same context text, so the table shows what the context brings on its own.
    """
    convs = load(path)
    primary = embeddings or PackagedMiniLMEmbeddings(data_dir / "models")

    def embedder() -> ResilientEmbeddings:
        # one cache per ranker: no ranker gets its query vector from another's cache
        return ResilientEmbeddings(primary, dimension=dimension, cache_size=50_000)

    model = embedder()
    methods: dict[str, Scores] = {
        m: Scores()
        for m in (
            "BM25",
            "dense",
            "RRF(BM25,dense)",
            "BM25 (turn + previous)",
            "RRF(BM25,dense) (turn + previous)",
            "prax (no context)",
            "prax",
        )
    }
    mems = {
        name: PraxMemory(
            MemoryConfig(qdrant_url=":memory:", data_dir=data_dir / name),
            embeddings=embedder(),
            embedding_dimension=dimension,
        )
        for name in ("prax", "prax (no context)")
    }
    n_q = sum(len(q) for _, _, q in convs)
    print(
        f"LoCoMo dev: {len(convs)} conversations, {sum(len(t) for _, t, _ in convs)} turns, "
        f"{n_q} scored questions",
        file=sys.stderr,
    )
    for sample_id, turns, questions in convs:
        texts = [t.text for t in turns]
        ids = [t.dia_id for t in turns]
        contexts = previous_turns(turns)
        started = time.perf_counter()
        for session in sessions(turns):
            mems["prax"].remember_conversation(
                sample_id,
                [
                    {"speaker": t.speaker, "text": t.said, "created_at": t.at, "key": t.dia_id}
                    for t in session
                ],
            )
        mems["prax (no context)"].remember_many(
            sample_id,
            [
                {"content": t.text, "key": t.dia_id, "created_at": t.at, "source": "conversation"}
                for t in turns
            ],
        )
        print(
            f"  {sample_id}: stored {len(turns)} turns twice in "
            f"{time.perf_counter() - started:.1f}s",
            file=sys.stderr,
        )
        doc_vecs = np.array(model.embed_documents(texts))
        bm25 = BM25(texts, words, k1=1.5)
        ctx_texts = [f"{c}\n{t}" if c else t for c, t in zip(contexts, texts, strict=True)]
        ctx_vecs = np.array(model.embed_documents(ctx_texts))
        bm25_ctx = BM25(ctx_texts, words, k1=1.5)
        now = max(t.at for t in turns)
        for q in questions:
            t0 = time.perf_counter()
            b_rank = bm25.rank(q.text)[:20]
            t1 = time.perf_counter()
            qv = np.array(model.embed_query(q.text))
            d_rank = list(np.argsort(-(doc_vecs @ qv))[:20])
            t2 = time.perf_counter()
            r_rank = rrf([bm25.rank(q.text)[:100], list(np.argsort(-(doc_vecs @ qv))[:100])])[:20]
            t3 = time.perf_counter()
            c_rank = bm25_ctx.rank(q.text)[:20]
            t4 = time.perf_counter()
            rc_rank = rrf([bm25_ctx.rank(q.text)[:100], list(np.argsort(-(ctx_vecs @ qv))[:100])])
            t4b = time.perf_counter()
            methods["BM25"].add(q, [ids[i] for i in b_rank], t1 - t0)
            methods["dense"].add(q, [ids[i] for i in d_rank], t2 - t1)
            methods["RRF(BM25,dense)"].add(q, [ids[i] for i in r_rank], (t3 - t2) + (t2 - t0))
            methods["BM25 (turn + previous)"].add(q, [ids[i] for i in c_rank], t4 - t3)
            methods["RRF(BM25,dense) (turn + previous)"].add(
                q, [ids[i] for i in rc_rank[:20]], (t4b - t4) + (t2 - t1)
            )
            for name, mem in mems.items():
                t5 = time.perf_counter()
                hits = mem.recall(sample_id, q.text, k=20, now=now, reinforce=False)
                methods[name].add(q, [h.memory.key for h in hits], time.perf_counter() - t5)
    for mem in mems.values():
        mem.close()
    return methods


def print_locomo(methods: dict[str, Scores]) -> None:
    rows = []
    for name, s in methods.items():
        m = s.summary()
        p50, p95 = percentiles(s.latency)
        rows.append(
            [
                name,
                *(f"{m[f'R@{k}']:.3f}" for k in KS),
                f"{m['any@10']:.3f}",
                f"{m['any@20']:.3f}",
                f"{p50:.1f} / {p95:.1f}",
            ]
        )
    print_table(
        "LoCoMo dev, turn-level retrieval (all scored categories)",
        ["method", "R@5", "R@10", "R@20", "any@10", "any@20", "ms/query p50 / p95"],
        rows,
    )
    rows = []
    for name, s in methods.items():
        rows.append([name, *(f"{s.summary(c)['R@10']:.3f}" for c in CATEGORIES)])
    print_table("R@10 per category", ["method", *CATEGORIES.values()], rows)
    base, prax = methods["BM25"].summary()["R@10"], methods["prax"].summary()["R@10"]
    ctx = methods["BM25 (turn + previous)"].summary()["R@10"]
    print(f"prax R@10 / BM25 R@10 = {prax / base:.2f}x")
    print(f"prax R@10 / BM25 (turn + previous) R@10 = {prax / ctx:.2f}x")
    worse = [
        name
        for c, name in CATEGORIES.items()
        if methods["prax"].summary(c)["R@10"] < methods["BM25"].summary(c)["R@10"]
    ]
    print("categories where prax R@10 < BM25:", ", ".join(worse) if worse else "none")


def run_latency(sizes: Sequence[int], data_dir: Path, queries: int) -> None:
    """Recall p50/p95 at each size, ingestion included (``benchmarks/store.py`` goes deeper)."""
    model = ResilientEmbeddings(PackagedMiniLMEmbeddings(data_dir / "models"), dimension=384)
    engine = MemoryConfig(data_dir=data_dir).vector_engine
    rows = []
    for n in sizes:
        mem = PraxMemory(
            MemoryConfig(data_dir=data_dir / f"lat-{n}"), embeddings=model, embedding_dimension=384
        )
        texts = synthetic_texts(n, seed=n)
        started = time.perf_counter()
        for s in range(0, n, 512):
            mem.remember_many("bench-user", [{"content": t} for t in texts[s : s + 512]])
        load_s = time.perf_counter() - started
        asks = [
            "What does Alice prefer?",
            "trip to Oslo",
            "license for personal projects",
            "what is the user learning",
            "fraud detection model",
        ]
        lat = []
        for i in range(queries):
            t0 = time.perf_counter()
            mem.recall("bench-user", asks[i % len(asks)], k=10, reinforce=False)
            lat.append(time.perf_counter() - t0)
        p50, p95 = percentiles(lat)
        rows.append([f"{n:,}", f"{n / load_s:,.0f}", f"{p50:.1f}", f"{p95:.1f}"])
        mem.close()
    print_table(
        f"Recall latency vs memories per user (embedded defaults: {engine})",
        ["memories", "ingest/s (with embedding)", "recall p50 ms", "recall p95 ms"],
        rows,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--latency-sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--latency-queries", type=int, default=20)
    parser.add_argument("--skip-locomo", action="store_true")
    parser.add_argument(
        "--embeddings",
        metavar="MODULE:CALLABLE",
        help="measure this model instead of the packaged MiniLM in the quality part (a "
        "callable returning a LangChain Embeddings; its floor settings come from "
        "MEMORY_RETRIEVAL)",
    )
    args = parser.parse_args(argv)
    model: Embeddings | None = None
    dimension = 384
    if args.embeddings:
        try:
            model, dimension = load_embeddings(args.embeddings)
        except ValueError as exc:
            parser.error(str(exc))
        print(f"embeddings: {args.embeddings} ({dimension} wide)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="prax-locomo-") as tmp:
        if not args.skip_locomo:
            if not args.data.is_file():
                print(
                    f"LoCoMo data not found at {args.data}: skipping the quality benchmark "
                    "(it is evaluation data and is not shipped with the project)."
                )
            else:
                print_locomo(run_locomo(args.data, Path(tmp), model, dimension))
        if args.latency_sizes:
            run_latency(args.latency_sizes, Path(tmp), args.latency_queries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
