"""Construction, lifecycle and ``index=`` of PraxMemoryStore (issue 17, points 2 and 3)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from langgraph_prax_memory import (
    ConfigError,
    MemoryConfig,
    PraxMemory,
    PraxMemoryStore,
)
from tests.fakes import HashEmbeddings

NS = ("memories", "alice")


def _config(path: Path) -> MemoryConfig:
    cfg = MemoryConfig(data_dir=path)
    return cfg.model_copy(
        update={"retrieval": cfg.retrieval.model_copy(update={"relevance_floor": False})}
    )


# ----------------------------------------------------------------------- lifecycle


def test_from_data_dir_owns_and_closes_its_memory(tmp_path: Path) -> None:
    index = {"embed": HashEmbeddings(), "dims": 384}
    with PraxMemoryStore.from_data_dir(tmp_path / "m", index=index) as store:  # type: ignore[arg-type]
        store.setup()
        store.setup()  # idempotent
        store.put(NS, "k", {"content": "Alice likes tea"})
        assert store.memory.config.data_dir == tmp_path / "m"
        vs = store.memory.vectors
        assert not vs._closed
    assert vs._closed  # the store closed the memory it built (and its engine client)
    again = PraxMemory(
        MemoryConfig(data_dir=tmp_path / "m"), embeddings=HashEmbeddings(), embedding_dimension=384
    )
    assert again.count("alice") == 1
    again.close()


def test_from_data_dir_passes_config_fields(tmp_path: Path) -> None:
    store = PraxMemoryStore.from_data_dir(
        tmp_path / "m", index={"embed": HashEmbeddings(), "dims": 384}, max_content_chars=50
    )
    try:
        assert store.memory.config.max_content_chars == 50
    finally:
        store.close()
        store.close()  # idempotent


def test_from_data_dir_refuses_an_unknown_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="bogus"):
        PraxMemoryStore.from_data_dir(tmp_path / "m", bogus=1)


def test_from_config_reads_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_DATA_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("QDRANT_URL", ":memory:")
    with PraxMemoryStore.from_config(index={"embed": HashEmbeddings(), "dims": 384}) as store:
        assert store.memory.config.data_dir == tmp_path / "env"
        assert store.memory.config.qdrant_url == ":memory:"
        store.put(NS, "k", {"content": "x"})
        assert store.get(NS, "k") is not None


def test_a_given_memory_is_not_closed_by_the_store(memory: PraxMemory) -> None:
    with PraxMemoryStore(memory) as store:
        store.put(NS, "k", {"content": "x"})
    assert memory.count("alice") == 1  # still open


def test_async_context_managers(tmp_path: Path) -> None:
    async def main() -> None:
        async with PraxMemoryStore.from_config(
            _config(tmp_path / "a"), index={"embed": HashEmbeddings(), "dims": 384}
        ) as store:
            await store.asetup()
            await store.aput(NS, "k", {"content": "Alice likes green tea"})
            hits = await store.asearch(NS, query="green tea")
            assert [h.key for h in hits] == ["k"]
        async with PraxMemory(
            MemoryConfig(data_dir=tmp_path / "a"),
            embeddings=HashEmbeddings(),
            embedding_dimension=384,
        ) as mem:  # the folder was released by the store; the facade has `async with` too
            assert mem.count("alice") == 1

    asyncio.run(main())


# ----------------------------------------------------------------------- index=


class _Counting(HashEmbeddings):
    pass


def test_index_embed_object_is_the_embedder(tmp_path: Path) -> None:
    emb = _Counting(64)
    with PraxMemoryStore.from_config(
        _config(tmp_path / "e"), index={"embed": emb, "dims": 64}
    ) as store:
        assert store.memory.embeddings.primary is emb
        assert store.memory.embeddings.dimension == 64
        calls = emb.calls
        store.put(NS, "k", {"content": "Zoë flew to Málaga"})
        assert emb.calls > calls  # the user's embedder embedded the item
        vs = store.memory.vectors
        info = vs.client.get_collection(vs.collection)
        assert info.config.params.vectors["dense"].size == 64  # type: ignore[index]
        assert store.search(NS, query="Málaga")[0].key == "k"


def test_index_embed_function(tmp_path: Path) -> None:
    model = HashEmbeddings(32)
    seen: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        seen.append(list(texts))
        return model.embed_documents(texts)

    with PraxMemoryStore.from_config(_config(tmp_path / "f"), index={"embed": embed}) as store:
        assert store.memory.embeddings.dimension == 32  # measured when dims is omitted
        store.put(NS, "k", {"content": "Alice likes tea"})
        assert ["Alice likes tea"] in seen
        assert store.search(NS, query="tea")[0].key == "k"


def test_index_embed_async_function(tmp_path: Path) -> None:
    model = HashEmbeddings(48)

    async def embed(texts: list[str]) -> list[list[float]]:
        await asyncio.sleep(0)
        return model.embed_documents(texts)

    async def main() -> None:
        async with PraxMemoryStore.from_config(
            _config(tmp_path / "af"), index={"embed": embed, "dims": 48}
        ) as store:
            await store.aput(NS, "k", {"content": "Alice likes tea"})
            store.put(NS, "j", {"content": "Bob likes coffee"})  # sync, inside a running loop
            assert (await store.asearch(NS, query="tea"))[0].key == "k"
            points = store.memory.vectors.iter_points("alice")
            assert len(points) == 2
            assert not any(p.payload["dense_pending"] for p in points)  # embedded, not deferred

    asyncio.run(main())


def test_index_embed_string_goes_through_langgraph(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nosuchprovider:model"):
        PraxMemoryStore.from_config(
            _config(tmp_path / "s"), index={"embed": "nosuchprovider:model", "dims": 8}
        )


def test_index_dims_that_do_not_fit(tmp_path: Path, memory: PraxMemory) -> None:
    with pytest.raises(ConfigError, match="returns 64-dimensional"):
        PraxMemoryStore.from_config(
            _config(tmp_path / "d1"), index={"embed": HashEmbeddings(64), "dims": 128}
        )
    with pytest.raises(ConfigError, match="384-dimensional"):
        PraxMemoryStore(memory, index={"dims": 768})
    # an existing collection of another width
    first = PraxMemoryStore.from_config(
        _config(tmp_path / "d2"), index={"embed": HashEmbeddings(), "dims": 384}
    )
    first.put(NS, "k", {"content": "x"})
    first.close()
    with pytest.raises(ConfigError, match="does not fit the existing collection"):
        PraxMemoryStore.from_config(
            _config(tmp_path / "d2"), index={"embed": HashEmbeddings(96), "dims": 96}
        )


def test_index_embed_with_a_given_memory(memory: PraxMemory) -> None:
    primary = memory.embeddings.primary
    assert isinstance(primary, Embeddings)
    store = PraxMemoryStore(memory, index={"embed": primary, "dims": 384, "fields": ["text"]})
    store.put(NS, "k", {"text": "Alice likes tea", "other": "ignored words"})
    assert store.search(NS, query="tea")[0].key == "k"
    with pytest.raises(ConfigError, match="another embedder"):
        PraxMemoryStore(memory, index={"embed": HashEmbeddings(), "dims": 384})


def test_default_path_without_index_is_unchanged(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory)
    store.put(NS, "k", {"content": "Alice likes tea"})
    assert store.index_config is None and store.memory is memory
    assert store.search(NS, query="tea")[0].key == "k"


@pytest.mark.parametrize(
    "name", ["langgraph_prax_memory.store", "langgraph_prax_memory.embeddings._sparse"]
)
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# ------------------------------------------------- more lifecycle and ``index=`` cases


def test_index_embed_provider_string_is_resolved_and_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``"provider:model"`` string goes through LangGraph's ``ensure_embeddings`` and
    LangChain's ``init_embeddings`` (import, construct), and that embedder embeds.

    No built-in provider works offline (each needs its service or an uninstalled package), so
    a test provider is registered in LangChain's provider table; nothing else is replaced.
    """
    from langchain.embeddings import base as lc_embeddings

    made: list[HashEmbeddings] = []

    def create(cls: type[HashEmbeddings], model: str, **kwargs: object) -> HashEmbeddings:
        made.append(cls(int(model)))
        return made[-1]

    monkeypatch.setitem(
        lc_embeddings._BUILTIN_PROVIDERS, "praxtest", ("tests.fakes", "HashEmbeddings", create)
    )
    lc_embeddings._get_embeddings_class_creator.cache_clear()
    try:
        with PraxMemoryStore.from_config(
            _config(tmp_path / "p"), index={"embed": "praxtest:40", "dims": 40}
        ) as store:
            assert len(made) == 1 and store.memory.embeddings.primary is made[0]
            assert store.memory.embeddings.dimension == 40
            store.put(NS, "k", {"content": "Alice likes tea"})
            assert made[0].calls > 0
            assert store.search(NS, query="tea")[0].key == "k"
        with pytest.raises(ConfigError, match="returns 40-dimensional"):
            PraxMemoryStore.from_config(
                _config(tmp_path / "q"), index={"embed": "praxtest:40", "dims": 41}
            )
    finally:
        lc_embeddings._get_embeddings_class_creator.cache_clear()


def test_a_failed_construction_releases_the_folder(tmp_path: Path) -> None:
    """A width error at construction closes the memory the store built: no process is left
    holding the embedded folder (another process can open it at once)."""
    folder = tmp_path / "w"
    with PraxMemoryStore.from_data_dir(folder, index={"embed": HashEmbeddings(), "dims": 384}) as s:  # type: ignore[arg-type]
        s.put(NS, "k", {"content": "x"})
    with pytest.raises(ConfigError, match="existing collection"):
        PraxMemoryStore.from_data_dir(folder, index={"embed": HashEmbeddings(96), "dims": 96})  # type: ignore[arg-type]
    code = textwrap.dedent(f"""
        from langgraph_prax_memory import MemoryConfig, PraxMemory
        from tests.fakes import HashEmbeddings
        mem = PraxMemory(MemoryConfig(data_dir={str(folder)!r}),
                         embeddings=HashEmbeddings(), embedding_dimension=384)
        print(mem.count("alice"))
        mem.close()
    """)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "1", proc.stderr[-2000:]


def test_a_memory_config_makes_an_owning_store(tmp_path: Path) -> None:
    cfg = MemoryConfig(data_dir=tmp_path / "c")
    store = PraxMemoryStore(cfg, index={"embed": HashEmbeddings(), "dims": 384})
    store.put(NS, "k", {"content": "x"})
    store.close()
    assert store.memory.vectors._closed


def test_sync_context_managers_and_setup_on_a_fresh_folder(tmp_path: Path) -> None:
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path / "s"), embeddings=HashEmbeddings(), embedding_dimension=384
    ) as mem:
        with PraxMemoryStore(mem) as store:
            store.setup()  # creates the collection
            store.setup()  # and then only checks it
            store.put(NS, "k", {"content": "Alice likes tea"})
        assert mem.count("alice") == 1  # the facade outlives the store it was given to
    assert mem.vectors._closed  # leaving the facade's `with` closed it
