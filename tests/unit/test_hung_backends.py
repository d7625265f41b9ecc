"""Hung backends: a server that accepts TCP and never answers costs one timeout, not every call.

The hung server is fault injection: a thread on 127.0.0.1 that accepts connections, reads what
it is sent and never answers. The Neo4j driver and qdrant-client are the real ones; the
breaker's own states are tested with a fake clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from langgraph_prax_memory import (
    BackendUnavailable,
    ConfigError,
    MemoryConfig,
    MemoryWriteError,
    PraxMemory,
    PraxMemoryError,
)
from langgraph_prax_memory._breaker import CircuitBreaker
from langgraph_prax_memory.errors import CircuitOpenError
from langgraph_prax_memory.graph import AsyncNeo4jGraphStore, Neo4jGraphStore
from langgraph_prax_memory.vectors import QdrantVectorStore, VectorRecord, open_qdrant_client
from langgraph_prax_memory.vectors._edge import EdgeClient
from tests.fakes import HashEmbeddings

# qdrant-client's background version check cannot reach the hung server either
pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version:UserWarning")

FACTS = [
    "Alice prefers Rust for systems projects.",
    "Alice uses NixOS with flakes.",
    "Alice insists on the MIT license for personal projects.",
]


class HungServer:
    """Accepts TCP connections on 127.0.0.1, reads what arrives, never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = int(self.sock.getsockname()[1])
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._data: list[bytearray] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            buf = bytearray()
            with self._lock:
                self._conns.append(conn)
                self._data.append(buf)
            threading.Thread(target=self._read, args=(conn, buf), daemon=True).start()

    def _read(self, conn: socket.socket, buf: bytearray) -> None:
        with contextlib.suppress(OSError):
            while chunk := conn.recv(65536):
                with self._lock:
                    buf.extend(chunk)
                if buf.startswith(b"GET / HTTP"):
                    # qdrant-client's background version check: cut it at once, so its
                    # warning comes during the test, not in a later one
                    conn.shutdown(socket.SHUT_RDWR)
                    return

    @property
    def connections(self) -> int:
        """TCP connections accepted so far."""
        with self._lock:
            return len(self._conns)

    def requests(self, marker: bytes) -> int:
        """Connections whose data so far contains ``marker`` (an HTTP path, say)."""
        with self._lock:
            return sum(marker in bytes(buf) for buf in self._data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        with self._lock:
            for conn in self._conns:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
        self._thread.join(timeout=5)


@pytest.fixture
def hung() -> Iterator[HungServer]:
    server = HungServer()
    yield server
    server.close()


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


# ------------------------------------------------------------------ the breaker itself


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _timeout_is_failure(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError)


def _fail(breaker: CircuitBreaker, exc: Exception | None = None) -> None:
    with pytest.raises(type(exc or TimeoutError())), breaker.guard():
        raise exc or TimeoutError("no answer")


def test_breaker_opens_after_the_configured_failures_and_then_skips_calls() -> None:
    clock = Clock()
    breaker = CircuitBreaker(
        "Demo DB", failures=2, cooldown=30, is_failure=_timeout_is_failure, clock=clock
    )
    _fail(breaker)
    assert breaker.state == "closed"
    _fail(breaker)
    assert breaker.state == "open"
    ran = []
    clock.now += 10
    with pytest.raises(CircuitOpenError) as info, breaker.guard():
        ran.append(1)
    assert not ran
    assert info.value.backend == "Demo DB"
    assert info.value.retry_in == pytest.approx(20.0)
    assert isinstance(info.value, BackendUnavailable)
    message = str(info.value)
    assert "Demo DB is unavailable (TimeoutError: no answer)" in message
    assert "next try in 20.0 s" in message
    assert breaker.trips == 1


def test_only_unavailability_counts_and_a_success_resets_the_count() -> None:
    breaker = CircuitBreaker("Demo DB", failures=2, is_failure=_timeout_is_failure, clock=Clock())
    _fail(breaker)
    for _ in range(3):  # the backend answered with an error: it is up
        _fail(breaker, ValueError("bad query"))
    assert breaker.state == "closed"
    _fail(breaker)
    with breaker.guard():
        pass
    _fail(breaker)
    assert breaker.state == "closed"


def test_half_open_lets_exactly_one_trial_through_and_success_closes() -> None:
    clock = Clock()
    breaker = CircuitBreaker("Demo DB", cooldown=5, is_failure=_timeout_is_failure, clock=clock)
    _fail(breaker)
    clock.now += 5
    assert breaker.state == "half-open"
    with (
        breaker.guard(),  # the trial
        pytest.raises(CircuitOpenError, match="a retry is under way"),
        breaker.guard(),
    ):
        pytest.fail("a second call ran during the trial")
    assert breaker.state == "closed"
    with breaker.guard():
        pass


def test_a_failed_trial_reopens_for_a_fresh_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker("Demo DB", cooldown=5, is_failure=_timeout_is_failure, clock=clock)
    _fail(breaker)
    clock.now += 6
    _fail(breaker)
    assert breaker.state == "open"
    clock.now += 4
    with pytest.raises(CircuitOpenError) as info, breaker.guard():
        pass
    assert info.value.retry_in == pytest.approx(1.0)
    assert breaker.trips == 2


def test_a_cancelled_trial_frees_the_slot_without_deciding() -> None:
    clock = Clock()
    breaker = CircuitBreaker("Demo DB", cooldown=5, is_failure=_timeout_is_failure, clock=clock)
    _fail(breaker)
    clock.now += 5
    with pytest.raises(asyncio.CancelledError), breaker.guard():
        raise asyncio.CancelledError
    assert breaker.state == "half-open"
    with breaker.guard():  # the next call is the trial
        pass
    assert breaker.state == "closed"


def test_a_call_started_before_the_opening_does_not_extend_the_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker("Demo DB", cooldown=30, is_failure=_timeout_is_failure, clock=clock)
    with pytest.raises(TimeoutError), breaker.guard():  # admitted while closed
        _fail(breaker)  # a concurrent call fails: the breaker opens
        clock.now += 10
        raise TimeoutError("late")
    assert breaker.trips == 1
    with pytest.raises(CircuitOpenError) as info, breaker.guard():
        pass
    assert info.value.retry_in == pytest.approx(20.0)


def test_background_probe_decides_while_callers_fail_fast() -> None:
    clock = Clock()
    gate = threading.Event()
    outcome: list[Exception | None] = [TimeoutError("still hung")]
    probes = []

    def probe() -> None:
        probes.append(1)
        gate.wait(5)
        if outcome[0] is not None:
            raise outcome[0]

    breaker = CircuitBreaker(
        "Demo DB", cooldown=5, is_failure=_timeout_is_failure, probe=probe, clock=clock
    )
    _fail(breaker)
    clock.now += 5
    with pytest.raises(CircuitOpenError, match="checking now"), breaker.guard():
        pytest.fail("ran while the probe decides")
    with pytest.raises(CircuitOpenError, match="a retry is under way"), breaker.guard():
        pass
    gate.set()
    _wait_for(lambda: breaker.state == "open")
    assert probes == [1]
    clock.now += 5
    gate.clear()
    outcome[0] = None
    with pytest.raises(CircuitOpenError), breaker.guard():
        pass
    gate.set()
    _wait_for(lambda: breaker.state == "closed")
    with breaker.guard():
        pass
    assert len(probes) == 2


def test_calls_through_a_closed_breaker_run_side_by_side() -> None:
    breaker = CircuitBreaker("Demo DB", is_failure=_timeout_is_failure)
    both_inside = threading.Barrier(2, timeout=5)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            with breaker.guard():
                both_inside.wait()  # breaks if the breaker runs one call at a time
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == []


# ------------------------------------------------------------------ Neo4j


def test_hung_neo4j_costs_one_timeout_then_calls_fail_without_connecting(
    hung: HungServer,
) -> None:
    store = Neo4jGraphStore(
        f"bolt://127.0.0.1:{hung.port}", connection_timeout=0.3, max_retry_time=0.3
    )
    try:
        with pytest.raises(BackendUnavailable, match="Neo4j graph"):
            store.search_entities("u1", "alice")
        tried = hung.connections
        assert tried >= 1
        for _ in range(5):
            with pytest.raises(BackendUnavailable, match="Neo4j graph"):
                store.get_neighbours("u1", "alice", hops=2)
            with pytest.raises(BackendUnavailable, match="Neo4j graph"):
                store.merge_entity("u1", "Bob")
        # Today's stores probed the hung server on every call (a new connection each time,
        # each costing the connection timeout); an open breaker does not touch it.
        assert hung.connections == tried
    finally:
        store.close()


def test_open_neo4j_breaker_names_the_backend_and_the_retry(hung: HungServer) -> None:
    store = Neo4jGraphStore(f"bolt://127.0.0.1:{hung.port}", connection_timeout=0.3)
    try:
        with pytest.raises(BackendUnavailable):
            store.stats("u1")
        with pytest.raises(CircuitOpenError) as info:
            store.stats("u1")
        assert info.value.backend == "Neo4j graph"
        assert 25 < info.value.retry_in <= 30  # MEMORY_BREAKER_COOLDOWN's default
        assert "ServiceUnavailable" in str(info.value)
        assert "next try in" in str(info.value)
    finally:
        store.close()


def test_neo4j_breaker_checks_in_the_background_after_the_cooldown(hung: HungServer) -> None:
    store = Neo4jGraphStore(
        f"bolt://127.0.0.1:{hung.port}", connection_timeout=0.3, breaker_cooldown=0.2
    )
    try:
        with pytest.raises(BackendUnavailable):
            store.stats("u1")
        tried = hung.connections
        _wait_for(lambda: store.breaker.state == "half-open")
        with pytest.raises(CircuitOpenError, match="checking now"):
            store.stats("u1")  # the probe runs in a thread; this call did not wait for it
        _wait_for(lambda: hung.connections > tried)  # the probe's connection
        _wait_for(lambda: store.breaker.trips == 2)  # still hung: open again
        with pytest.raises(CircuitOpenError, match="next try in"):
            store.stats("u1")
    finally:
        store.close()


async def test_async_neo4j_breaker_makes_the_next_call_the_trial(hung: HungServer) -> None:
    store = AsyncNeo4jGraphStore(
        f"bolt://127.0.0.1:{hung.port}", connection_timeout=0.3, breaker_cooldown=0.2
    )
    try:
        with pytest.raises(BackendUnavailable):
            await store.stats("u1")
        tried = hung.connections
        with pytest.raises(CircuitOpenError):
            await store.get_events("u1")
        assert hung.connections == tried
        await asyncio.sleep(0.25)
        with pytest.raises(BackendUnavailable) as info:
            await store.stats("u1")  # the trial: it tries the server, and fails
        assert not isinstance(info.value, CircuitOpenError)
        assert hung.connections > tried
        assert store.breaker.state == "open"
    finally:
        await store.close()


def test_recall_with_a_hung_neo4j_answers_from_the_other_arms(
    hung: HungServer, tmp_path: Path
) -> None:
    config = MemoryConfig(
        data_dir=tmp_path / "data",
        qdrant_url=":memory:",
        neo4j_uri=f"bolt://127.0.0.1:{hung.port}",
        neo4j_connect_timeout=0.3,
    )
    with PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        mem.remember_many("alice", [{"content": f} for f in FACTS])
        first = mem.recall_detailed("alice", "Which license does Alice use?", reinforce=False)
        assert first.hits and "graph" in first.errors
        tried = hung.connections
        for _ in range(3):
            result = mem.recall_detailed("alice", "Does Alice like Rust?", reinforce=False)
            assert result.hits[0].memory.content == FACTS[0]
            assert set(result.arms) == {"dense", "sparse"}
            assert "Neo4j graph is unavailable" in result.errors["graph"]
            assert "circuit breaker is open" in result.errors["graph"]
        assert hung.connections == tried


def test_a_graph_that_stops_answering_mid_lookup_costs_recall_its_timeout_once(
    tmp_path: Path,
) -> None:
    """A graph store that hangs on a connection it already holds (no connect timeout
    applies): recall waits ``graph_timeout``, answers from the other arms, and leaves the
    graph arm out while that lookup still runs; the graph arm is back once it returns."""
    config = MemoryConfig(data_dir=tmp_path / "data", qdrant_url=":memory:")
    config = config.model_copy(
        update={"retrieval": config.retrieval.model_copy(update={"graph_timeout": 0.3})}
    )
    with PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        ids = {name: mem.graph.merge_entity("alice", name).id for name in ("Alice", "Rust")}
        mem.remember_many(
            "alice", [{"content": FACTS[0], "entity_ids": sorted(ids.values())}, *FACTS[1:]]
        )
        healthy = mem.recall_detailed("alice", "Does Alice like Rust?", reinforce=False)
        assert healthy.arms.get("graph") and "graph" not in healthy.errors

        graph = mem.graph
        real, release = graph.search_entities, threading.Event()
        started = threading.Event()

        def hung_search(*args: object, **kwargs: object) -> object:  # fault injection
            started.set()
            release.wait(30)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        graph.search_entities = hung_search  # type: ignore[method-assign]
        t0 = time.perf_counter()
        first = mem.recall_detailed("alice", "Does Alice like Rust?", reinforce=False)
        waited = time.perf_counter() - t0
        assert started.is_set() and 0.25 < waited < 5
        assert first.hits[0].memory.content == FACTS[0] and set(first.arms) == {"dense", "sparse"}
        assert "no answer within 0.3 s" in first.errors["graph"]

        t0 = time.perf_counter()
        second = mem.recall_detailed("alice", "Does Alice like Rust?", reinforce=False)
        assert time.perf_counter() - t0 < 0.25  # the late lookup is not waited for again
        assert "has not answered yet" in second.errors["graph"] and second.hits

        release.set()
        graph.search_entities = real  # type: ignore[method-assign]
        deadline = time.monotonic() + 10
        while "graph" in mem.recall_detailed("alice", "Rust", reinforce=False).errors:
            assert time.monotonic() < deadline, "the graph arm did not come back"
            time.sleep(0.05)


def test_closing_does_not_wait_for_a_graph_lookup_that_never_answered(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path / "data", qdrant_url=":memory:")
    config = config.model_copy(
        update={"retrieval": config.retrieval.model_copy(update={"graph_timeout": 0.2})}
    )
    release = threading.Event()
    mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    try:
        mem.graph.merge_entity("alice", "Rust")
        mem.remember("alice", FACTS[0])
        real = mem.graph.search_entities

        def hung_search(*args: object, **kwargs: object) -> object:  # fault injection
            release.wait(30)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        mem.graph.search_entities = hung_search  # type: ignore[method-assign]
        assert "graph" in mem.recall_detailed("alice", "Rust", reinforce=False).errors
        t0 = time.perf_counter()
        mem.close()
        assert time.perf_counter() - t0 < 5
    finally:
        release.set()


# ------------------------------------------------------------------ Qdrant

COLLECTION_CALLS = b"/collections/"


def _hung_qdrant_config(tmp_path: Path, port: int, **extra: object) -> MemoryConfig:
    return MemoryConfig(
        data_dir=tmp_path / "data",
        qdrant_url=f"http://127.0.0.1:{port}",
        qdrant_connect_timeout=0.3,
        qdrant_read_timeout=0.3,
        **extra,  # type: ignore[arg-type]
    )


def test_hung_qdrant_fails_writes_and_recalls_fast_and_never_pretends(
    hung: HungServer, tmp_path: Path
) -> None:
    config = _hung_qdrant_config(tmp_path, hung.port)
    with PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        started = time.monotonic()
        with pytest.raises(PraxMemoryError, match="Qdrant"):
            mem.remember("alice", FACTS[0])
        # QDRANT_READ_TIMEOUT applies (the client's own timeout was a fixed 10 s)
        assert time.monotonic() - started < 5
        tried = hung.requests(COLLECTION_CALLS)
        assert tried >= 1
        for _ in range(3):
            with pytest.raises(CircuitOpenError, match="Qdrant is unavailable"):
                mem.remember("alice", FACTS[1])
            with pytest.raises(BackendUnavailable, match="circuit breaker is open") as info:
                mem.recall_detailed("alice", "Which license?", reinforce=False)
            # the arms, or the calibration read before them, name the open circuit
            assert "Qdrant" in str(info.value)
            with pytest.raises(CircuitOpenError):
                mem.count("alice")
        assert hung.requests(COLLECTION_CALLS) == tried


def test_writes_through_an_open_qdrant_breaker_are_write_errors(hung: HungServer) -> None:
    cfg = MemoryConfig(
        qdrant_url=f"http://127.0.0.1:{hung.port}",
        qdrant_connect_timeout=0.3,
        qdrant_read_timeout=0.3,
    )
    store = QdrantVectorStore(open_qdrant_client(cfg), dimension=384)
    try:
        with pytest.raises(BackendUnavailable, match="ReadTimeout"):
            store.count("alice")
        record = VectorRecord(
            "00000000-0000-0000-0000-000000000001", {"user_id": "alice"}, [0.1] * 384, None
        )
        with pytest.raises(MemoryWriteError, match="circuit breaker is open"):
            store.upsert("alice", [record])
        with pytest.raises(MemoryWriteError, match="circuit breaker is open"):
            store.set_dense("alice", {record.id: [0.2] * 384}, "model")
        assert store.breaker is not None and store.breaker.trips == 1
    finally:
        store.close()


def test_qdrant_breaker_probes_in_the_background_after_the_cooldown(hung: HungServer) -> None:
    client = open_qdrant_client(
        MemoryConfig(
            qdrant_url=f"http://127.0.0.1:{hung.port}",
            qdrant_connect_timeout=0.3,
            qdrant_read_timeout=0.3,
        )
    )
    store = QdrantVectorStore(client, dimension=384, breaker_cooldown=0.2)
    assert store.breaker is not None
    try:
        with pytest.raises(BackendUnavailable):
            store.count("alice")
        tried = hung.requests(COLLECTION_CALLS)
        _wait_for(lambda: store.breaker is not None and store.breaker.state == "half-open")
        with pytest.raises(CircuitOpenError, match="checking now"):
            store.count("alice")
        _wait_for(lambda: hung.requests(COLLECTION_CALLS) > tried)
        _wait_for(lambda: store.breaker is not None and store.breaker.trips == 2)
    finally:
        store.close()


def test_embedded_engines_have_no_breaker_and_server_stores_share_one(
    hung: HungServer, tmp_path: Path
) -> None:
    assert QdrantVectorStore(EdgeClient(":memory:"), dimension=8).breaker is None
    assert QdrantVectorStore(QdrantClient(":memory:"), dimension=8).breaker is None
    config = _hung_qdrant_config(tmp_path, hung.port)
    client = QdrantClient(url=config.qdrant_url, check_compatibility=False)
    with PraxMemory(
        config, embeddings=HashEmbeddings(), embedding_dimension=384, qdrant_client=client
    ) as mem:
        kb = mem.knowledge
        assert kb.vectors is not None
        assert kb.vectors.store.breaker is mem.vectors.breaker is not None


# ------------------------------------------------------------------ configuration


def test_timeouts_and_breaker_settings_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    defaults = MemoryConfig()
    assert (defaults.qdrant_connect_timeout, defaults.qdrant_read_timeout) == (2.0, 5.0)
    assert (defaults.neo4j_connect_timeout, defaults.neo4j_max_retry_time) == (2.0, 10.0)
    assert (defaults.breaker_failures, defaults.breaker_cooldown) == (1, 30.0)
    env = {
        "QDRANT_CONNECT_TIMEOUT": "0.5",
        "QDRANT_READ_TIMEOUT": "1.5",
        "NEO4J_CONNECT_TIMEOUT": "0.7",
        "NEO4J_MAX_RETRY_TIME": "3",
        "MEMORY_BREAKER_FAILURES": "2",
        "MEMORY_BREAKER_COOLDOWN": "5",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    cfg = MemoryConfig(neo4j_uri="bolt://127.0.0.1:1")
    assert (cfg.qdrant_connect_timeout, cfg.qdrant_read_timeout) == (0.5, 1.5)
    store = Neo4jGraphStore(cfg)
    try:
        assert store.max_retry_time == 3.0
        assert (store.breaker.failures, store.breaker.cooldown) == (2, 5.0)
    finally:
        store.close()
    for name, bad in (("QDRANT_READ_TIMEOUT", "0"), ("MEMORY_BREAKER_FAILURES", "0")):
        monkeypatch.setenv(name, bad)
        with pytest.raises(ConfigError, match=name):
            MemoryConfig()
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("NEO4J_CONNECT_TIMEOUT", "nan")
    with pytest.raises(ConfigError, match="NEO4J_CONNECT_TIMEOUT"):
        MemoryConfig()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_killed_probe_leaves_the_breaker_open_and_lets_the_next_probe_run() -> None:
    class Killed(BaseException):
        pass

    clock = Clock()
    probes: list[int] = []

    def probe() -> None:
        probes.append(1)
        raise Killed

    breaker = CircuitBreaker(
        "Demo DB", cooldown=5, is_failure=_timeout_is_failure, probe=probe, clock=clock
    )
    _fail(breaker)
    for expected in (1, 2):  # the second probe runs: the first one did not wedge the breaker
        clock.now += 5
        with pytest.raises(CircuitOpenError), breaker.guard():
            pass
        _wait_for(lambda n=expected: len(probes) == n)  # type: ignore[misc]
        _wait_for(lambda: not breaker._trying)
        for thread in threading.enumerate():  # let the killed probe thread end here
            if thread.name == "prax-breaker-probe-Demo DB":
                thread.join(5)
        assert breaker.state != "closed"  # a killed probe proved nothing


def test_entity_lookup_on_a_graph_that_stops_answering_waits_once(tmp_path: Path) -> None:
    """``memory_entity_lookup`` on a graph that hangs on a connection it already holds (issue
    26, item 8): one wait of ``retrieval.graph_timeout``, a clear "graph unavailable" answer,
    no second wait while that lookup still runs, and the tool is back once it returns."""
    from langgraph_prax_memory.tools import create_memory_tools

    config = MemoryConfig(data_dir=tmp_path / "data", qdrant_url=":memory:")
    config = config.model_copy(
        update={"retrieval": config.retrieval.model_copy(update={"graph_timeout": 0.3})}
    )
    with PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        mem.graph.add_relation("alice", "Alice", "Rust", "prefers")
        tools = {t.name: t for t in create_memory_tools(mem, user_id="alice")}
        lookup, query = tools["memory_entity_lookup"], tools["memory_graph_query"]
        assert "rust" in lookup.invoke({"name": "Alice"})

        graph = mem.graph
        real, release, started = graph.get_entity, threading.Event(), threading.Event()

        def hung_get_entity(*args: object, **kwargs: object) -> object:  # fault injection
            started.set()
            release.wait(30)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        graph.get_entity = hung_get_entity  # type: ignore[method-assign]
        try:
            t0 = time.perf_counter()
            first = lookup.invoke({"name": "Alice"})
            waited = time.perf_counter() - t0
            assert started.is_set() and 0.25 < waited < 5
            assert first.startswith("Memory system not available")
            assert "graph" in first and "no answer within 0.3 s" in first

            t0 = time.perf_counter()
            second = lookup.invoke({"name": "Alice"})
            also = query.invoke({"question": "What does Alice prefer?"})
            assert time.perf_counter() - t0 < 0.25  # the late lookup is not waited for again
            assert "has not answered yet" in second and "has not answered yet" in also
        finally:
            release.set()
            graph.get_entity = real  # type: ignore[method-assign]
        deadline = time.monotonic() + 10
        while "rust" not in lookup.invoke({"name": "Alice"}):
            assert time.monotonic() < deadline, "the lookup did not come back"
            time.sleep(0.05)
