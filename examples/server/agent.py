"""The server's agent: ``create_agent`` with Prax memory taken from the server's store.

The memory behind the server's store (``store.py``) is the one the agent uses:
``PraxMemoryMiddleware()`` without a memory reads ``runtime.store`` (a ``PraxMemoryStore``), so
the server opens the embedded data folder once. The user of a run is the authenticated caller:
the server puts its identity (``auth.py``) in ``config["configurable"]["langgraph_auth_user_id"]``,
and a run whose context names someone else is refused.

``PRAX_AGENT_MODEL`` picks the chat model (an ``init_chat_model`` string,
``openai:gpt-4o-mini`` by default).
"""

from __future__ import annotations

import os

from langchain.agents import create_agent

from langgraph_prax_memory import PraxMemoryMiddleware

agent = create_agent(
    os.environ.get("PRAX_AGENT_MODEL", "openai:gpt-4o-mini"),
    tools=[],
    system_prompt="You are a helpful assistant that remembers the user across conversations.",
    middleware=[PraxMemoryMiddleware(user_id_key="langgraph_auth_user_id")],
)
