from __future__ import annotations

from pathlib import Path

import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig


def test_defaults_are_offline(tmp_path: Path) -> None:
    cfg = MemoryConfig(data_dir=tmp_path)
    assert cfg.enabled is True
    assert cfg.qdrant_url is None and cfg.neo4j_uri is None
    assert cfg.embedding_provider == "local"
    assert cfg.resolved_embedding_model == "all-MiniLM-L6-v2-int8"
    assert cfg.embedding_dimension == 384
    assert cfg.stm_max_entries == 50
    assert cfg.decay_halflife_days == 7.0
    assert cfg.consolidation_interval == 3600
    assert cfg.qdrant_path == tmp_path / "qdrant"


def test_seed_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_ENABLED", "false")
    monkeypatch.setenv("QDRANT_URL", "http://qdrant:6333")
    monkeypatch.setenv("NEO4J_URI", "bolt://neo4j:7687")
    monkeypatch.setenv("NEO4J_USER", "admin")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret")
    monkeypatch.setenv("EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("EMBEDDING_MODEL", "nomic-embed-text")
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://ollama:11434")
    monkeypatch.setenv("MEMORY_STM_MAX_ENTRIES", "20")
    monkeypatch.setenv("MEMORY_DECAY_HALFLIFE_DAYS", "3.5")
    monkeypatch.setenv("MEMORY_CONSOLIDATION_INTERVAL", "60")
    cfg = MemoryConfig()
    assert cfg.enabled is False
    assert cfg.qdrant_url == "http://qdrant:6333"
    assert cfg.neo4j_uri == "bolt://neo4j:7687"
    assert cfg.neo4j_user == "admin"
    assert cfg.neo4j_password is not None and cfg.neo4j_password.get_secret_value() == "s3cret"
    assert cfg.embedding_provider == "ollama" and cfg.embedding_dimension == 768
    assert cfg.ollama_base_url == "http://ollama:11434"
    assert cfg.stm_max_entries == 20
    assert cfg.decay_halflife_days == 3.5
    assert cfg.consolidation_interval == 60
    assert "s3cret" not in repr(cfg)


@pytest.mark.parametrize(
    ("env", "value"),
    [
        ("EMBEDDING_PROVIDER", "cohere"),
        ("MEMORY_STM_MAX_ENTRIES", "0"),
        ("MEMORY_STM_MAX_ENTRIES", "many"),
        ("MEMORY_DECAY_HALFLIFE_DAYS", "-1"),
        ("MEMORY_DECAY_HALFLIFE_DAYS", "inf"),
        ("MEMORY_ENABLED", "perhaps"),
    ],
)
def test_invalid_values_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError, match=env):
        MemoryConfig()


def test_keyword_arguments_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_STM_MAX_ENTRIES", "20")
    assert MemoryConfig(stm_max_entries=7).stm_max_entries == 7


def test_config_is_read_at_construction_not_import() -> None:
    import subprocess
    import sys

    code = (
        "import os; os.environ['MEMORY_DECAY_HALFLIFE_DAYS'] = 'not-a-number';"
        "import langgraph_prax_memory as m;"  # importing must not read (or choke on) the env
        "os.environ['MEMORY_DECAY_HALFLIFE_DAYS'] = '9';"
        "print(m.MemoryConfig().decay_halflife_days)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "9.0"


def test_unknown_keyword_is_an_error() -> None:
    with pytest.raises(ConfigError):
        MemoryConfig(halflife=3)


def test_only_the_documented_environment_names_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", "/tmp/not-ours")
    monkeypatch.setenv("ENABLED", "false")
    monkeypatch.setenv("RETRIEVAL", '{"rrf_k": 1}')
    cfg = MemoryConfig()
    assert str(cfg.data_dir) != "/tmp/not-ours"
    assert cfg.enabled is True and cfg.retrieval.rrf_k == 60


def test_model_routing_from_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_MODEL_ROUTING", '{"consolidation": "openai:gpt-4o-mini"}')
    route = MemoryConfig().model_routing.consolidation
    assert route.model == "openai:gpt-4o-mini" and route.temperature == 0.2
