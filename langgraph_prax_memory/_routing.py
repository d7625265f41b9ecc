"""Model routing: which chat model (and temperature) each memory component uses.

Kept free of LangGraph and of the facade so that :class:`~langgraph_prax_memory.MemoryConfig`
can hold a :class:`ModelRouting` without an import cycle. Re-exported by
:mod:`langgraph_prax_memory.agents`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeGuard

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from langgraph_prax_memory.errors import ConfigError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "COMPONENTS",
    "Component",
    "ModelRoute",
    "ModelRouting",
    "describe_errors",
    "resolve_chat_model",
]

Component = Literal["memory_agent", "consolidation", "stm_compaction", "query_expansion", "rerank"]
#: The routed components, in the order of the seed's routing table.
COMPONENTS: tuple[Component, ...] = (
    "memory_agent",
    "consolidation",
    "stm_compaction",
    "query_expansion",
    "rerank",
)


def _chat_model_class() -> type[BaseChatModel]:
    # imported on use: a configuration without chat model instances never loads LangChain
    from langchain_core.language_models import BaseChatModel

    return BaseChatModel


def _is_chat_model(value: object) -> TypeGuard[BaseChatModel]:
    """Whether ``value`` is a LangChain chat model (a string or ``None`` imports nothing)."""
    return (
        value is not None and not isinstance(value, str) and isinstance(value, _chat_model_class())
    )


def _model_or_name(value: Any) -> Any:
    if value is None or isinstance(value, str) or _is_chat_model(value):
        return value
    raise ValueError(
        f"Input should be a model string or a BaseChatModel instance, got {type(value).__name__}"
    )


if TYPE_CHECKING:
    _ModelSpec = str | BaseChatModel | None
else:  # checked without importing LangChain for a string or None
    _ModelSpec = Annotated[Any, BeforeValidator(_model_or_name)]


def describe_errors(exc: ValidationError, known: Iterable[str]) -> str:
    """One line per pydantic error: where (``a.b``) and what, unknown keys listing ``known``.

    Example:
        >>> try:
        ...     ModelRoute(temperature=0.1, modle="x")
        ... except ConfigError as exc:
        ...     print(exc)
        invalid model route: modle: unknown key; choose from model, temperature
    """
    choices = ", ".join(known)
    parts = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = f"unknown key; choose from {choices}"
        parts.append(f"{path}: {msg}" if path else msg)
    return "; ".join(parts)


def resolve_chat_model(
    model: str | BaseChatModel, *, temperature: float | None = None
) -> BaseChatModel:
    """A chat model from an instance (returned as is) or an ``init_chat_model`` string.

    Strings such as ``"openai:gpt-4o-mini"`` or ``"ollama:llama3.1"`` go through
    ``langchain.chat_models.init_chat_model`` with ``temperature``; that needs the
    ``langchain`` package and the provider's integration package.

    Raises:
        ConfigError: The string cannot be turned into a model (package missing, bad name).

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> fake = GenericFakeChatModel(messages=iter([]))
        >>> resolve_chat_model(fake) is fake
        True
    """
    if _is_chat_model(model):
        return model
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(f"a chat model must be a BaseChatModel or a model string, got {model!r}")
    try:
        init_chat_model = importlib.import_module("langchain.chat_models").init_chat_model
    except ImportError as exc:
        raise ConfigError(
            f"chat model {model!r} is a string, which needs LangChain's init_chat_model: "
            "pip install langchain (and the provider package, e.g. langchain-openai), "
            "or pass a chat model instance"
        ) from exc
    kwargs: dict[str, Any] = {}
    if temperature is not None:
        kwargs["temperature"] = temperature
    try:
        resolved = init_chat_model(model, **kwargs)
    except Exception as exc:  # init_chat_model raises ValueError/ImportError/provider errors
        raise ConfigError(f"cannot build chat model {model!r}: {exc}") from exc
    if not isinstance(resolved, _chat_model_class()):
        raise ConfigError(f"{model!r} did not produce a chat model")
    return resolved


class ModelRoute(BaseModel):
    """The chat model of one component and its temperature.

    ``model`` is an ``init_chat_model`` string (``"openai:gpt-4o-mini"``), a chat model
    instance, or ``None`` for "the default model" (the agent's own model; for query
    expansion and rerank, ``None`` means the pass is off). ``temperature`` applies to strings;
    an instance is used exactly as configured.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True, extra="forbid")

    model: _ModelSpec = None
    temperature: float = Field(ge=0.0, le=2.0)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            known = type(self).model_fields
            raise ConfigError(f"invalid model route: {describe_errors(exc, known)}") from exc


class ModelRouting(BaseModel):
    """Which chat model and temperature each memory component uses — in one place.

    Defaults are the seed's routing table (``subagent_memory`` 0.3, ``memory_consolidation``
    0.2, ``memory_compact`` 0.2); the two optional precision passes default to no model (off),
    with temperature 0.0 for the rerank judge and 0.5 for paraphrase expansion. An unknown
    component or route key (a typo such as ``consolidaton``) is a :class:`ConfigError`.

    Example:
        >>> routing = ModelRouting(memory_agent="openai:gpt-4o-mini")
        >>> routing.memory_agent.temperature, routing.consolidation.temperature
        (0.3, 0.2)
        >>> routing.for_component("rerank").model is None
        True
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True, extra="forbid")

    memory_agent: ModelRoute = Field(default_factory=lambda: ModelRoute(temperature=0.3))
    """The memory sub-agent ("memory spoke"), seed ``subagent_memory``."""
    consolidation: ModelRoute = Field(default_factory=lambda: ModelRoute(temperature=0.2))
    """Entity/relation/fact extraction and summaries, seed ``memory_consolidation``."""
    stm_compaction: ModelRoute = Field(default_factory=lambda: ModelRoute(temperature=0.2))
    """Summarising the oldest half of an over-full scratchpad, seed ``memory_compact``."""
    query_expansion: ModelRoute = Field(default_factory=lambda: ModelRoute(temperature=0.5))
    """Paraphrase / HyDE variants for the dense arm (off while ``model`` is ``None``)."""
    rerank: ModelRoute = Field(default_factory=lambda: ModelRoute(temperature=0.0))
    """The LLM judge re-scoring the top fused candidates (off while ``model`` is ``None``)."""

    def __init__(self, **values: Any) -> None:
        for name in COMPONENTS:
            value = values.get(name)
            if isinstance(value, str) or _is_chat_model(value):
                default = type(self).model_fields[name].get_default(call_default_factory=True)
                values[name] = ModelRoute(model=value, temperature=default.temperature)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            # an unknown component (a typo such as "consolidaton") is an error, never ignored
            message = describe_errors(exc, COMPONENTS)
            raise ConfigError(f"invalid model routing: {message}") from exc

    def for_component(self, component: Component) -> ModelRoute:
        """The route of ``component``."""
        if component not in COMPONENTS:
            raise ConfigError(f"unknown component {component!r}; choose from {COMPONENTS}")
        route: ModelRoute = getattr(self, component)
        return route

    def resolve(
        self, component: Component, default: str | BaseChatModel | None = None
    ) -> BaseChatModel | None:
        """The chat model of ``component`` (``default`` when it has none), or ``None``.

        Raises:
            ConfigError: A model string cannot be built.
        """
        route = self.for_component(component)
        spec = route.model if route.model is not None else default
        if spec is None:
            return None
        return resolve_chat_model(spec, temperature=route.temperature)
