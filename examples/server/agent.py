"""The server's agent: ``create_agent`` with Prax memory taken from the server's store.

The memory behind the server's store (``store.py``) is the one the agent uses:
``PraxMemoryMiddleware()`` without a memory reads ``runtime.store`` (a ``PraxMemoryStore``), so
the server opens the embedded data folder once. The user of a run is the authenticated caller:
the server puts its identity (``auth.py``) in ``config["configurable"]["langgraph_auth_user_id"]``,
and a run whose context names someone else is refused.

The chat model: with ``PRAX_AGENT_MODEL`` unset, the offline ``EchoChatModel`` (no API key, no
network; it answers with the question and the memories it was given, so you can watch memory
reach the model). To switch to a real model, set ``PRAX_AGENT_MODEL`` to an
``init_chat_model`` string and install its provider, e.g.
``PRAX_AGENT_MODEL=openai:gpt-4o-mini`` with ``OPENAI_API_KEY`` set (``langchain-openai`` is
installed with this library), or ``ollama:llama3.1`` with ``pip install langchain-ollama``.
"""

from __future__ import annotations

import os
from typing import Any

from langchain.agents import create_agent

from langgraph_prax_memory import PraxMemoryMiddleware
from langgraph_prax_memory.chat_models import EchoChatModel


def _model() -> Any:
    """The chat model named by ``PRAX_AGENT_MODEL``, else the offline echo model."""
    name = os.environ.get("PRAX_AGENT_MODEL", "").strip()
    return name or EchoChatModel()


agent = create_agent(
    _model(),
    tools=[],
    system_prompt="You are a helpful assistant that remembers the user across conversations.",
    middleware=[PraxMemoryMiddleware(user_id_key="langgraph_auth_user_id")],
)
