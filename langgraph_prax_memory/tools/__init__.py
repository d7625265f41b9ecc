"""The memory tools of the Prax memory spoke, and a ``ToolNode`` factory.

Ten memory tools with the seed's names and meanings, plus the two user-notes tools:

============================  ==============================================================
``memory_stm_write``          upsert a scratchpad entry (key, content, importance, tags)
``memory_stm_read``           one scratchpad entry, or the whole scratchpad
``memory_stm_delete``         remove a scratchpad entry
``memory_remember``           store a durable long-term memory (content, importance, tags)
``memory_recall``             hybrid recall (dense + sparse + graph, fused by weighted RRF)
``memory_forget``             delete one long-term memory by id
``memory_entity_lookup``      an entity and all its current relations
``memory_graph_query``        a question over the graph: phrases → entities → neighbourhood
``memory_consolidate``        run consolidation now (when a consolidator is configured)
``memory_stats``              counts of every layer for the current user
``user_notes_read``           the whole ``user_notes.md``
``user_notes_update``         replace ``user_notes.md`` (git-committed, compacted if needed)
============================  ==============================================================

**Whose memory.** Every tool acts for exactly one user: the ``user_id`` bound when the tool
was built, else ``config["configurable"]["user_id"]`` of the run (LangGraph's convention).
With neither, the call raises :class:`MissingUserIdError`; there is no shared default user.
A bound id that disagrees with the run's id is refused the same way.

**What they return.** A concise string for the model and a JSON-ready ``dict`` artifact for
programs (``response_format="content_and_artifact"``): invoked with a ``ToolCall`` a tool
returns a ``ToolMessage`` whose ``artifact`` holds the structured result.

**Degradation.** When long-term memory is off (``MEMORY_ENABLED=false``) or a backend is
unreachable, the long-term and graph tools answer ``"Memory system not available."`` (artifact
``{"status": "unavailable"}``); the scratchpad and notes tools keep working. Bad input (an
empty content, an importance of 3) comes back to the model as an error message it can fix, and
so does a disk that refuses a file (read-only, full, no permission): a
:class:`~langgraph_prax_memory.errors.MemoryWriteError` message naming the file, never a raw
``OSError``.

Example:
    >>> import tempfile
    >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
    >>> memory = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
    >>> tools = {t.name: t for t in create_memory_tools(memory, user_id="alice")}
    >>> tools["memory_stm_write"].invoke({"key": "goal", "content": "ship the CLI"})
    "Saved scratchpad entry 'goal'."
    >>> print(tools["memory_stm_read"].invoke({}))
    1 scratchpad entry:
    - **goal** (importance 0.5): ship the CLI

The package holds one module per tool family (``_stm``, ``_ltm``, ``_graph``,
``_maintenance``, ``_notes``), the base class (``_base``), the argument schemas
(``_schemas``) and the factories (``_factory``).
"""

from langgraph_prax_memory.tools._base import (
    LTM_TOOL_NAMES as LTM_TOOL_NAMES,
)
from langgraph_prax_memory.tools._base import (
    MEMORY_TOOL_NAMES as MEMORY_TOOL_NAMES,
)
from langgraph_prax_memory.tools._base import (
    NOT_AVAILABLE as NOT_AVAILABLE,
)
from langgraph_prax_memory.tools._base import (
    STM_TOOL_NAMES as STM_TOOL_NAMES,
)
from langgraph_prax_memory.tools._base import (
    TOOL_NAMES as TOOL_NAMES,
)
from langgraph_prax_memory.tools._base import (
    USER_NOTES_TOOL_NAMES as USER_NOTES_TOOL_NAMES,
)
from langgraph_prax_memory.tools._base import (
    MemoryTool,
    MissingUserIdError,
    resolve_user_id,
)
from langgraph_prax_memory.tools._factory import create_memory_tool_node, create_memory_tools
from langgraph_prax_memory.tools._graph import MemoryEntityLookupTool, MemoryGraphQueryTool
from langgraph_prax_memory.tools._ltm import MemoryForgetTool, MemoryRecallTool, MemoryRememberTool
from langgraph_prax_memory.tools._maintenance import (
    MemoryConsolidateTool,
    MemoryStatsTool,
)
from langgraph_prax_memory.tools._maintenance import (
    consolidation_hook as consolidation_hook,
)
from langgraph_prax_memory.tools._maintenance import (
    summarise_consolidation as summarise_consolidation,
)
from langgraph_prax_memory.tools._notes import UserNotesReadTool, UserNotesUpdateTool
from langgraph_prax_memory.tools._stm import (
    MemoryStmDeleteTool,
    MemoryStmReadTool,
    MemoryStmWriteTool,
)

__all__ = [
    "MemoryConsolidateTool",
    "MemoryEntityLookupTool",
    "MemoryForgetTool",
    "MemoryGraphQueryTool",
    "MemoryRecallTool",
    "MemoryRememberTool",
    "MemoryStatsTool",
    "MemoryStmDeleteTool",
    "MemoryStmReadTool",
    "MemoryStmWriteTool",
    "MemoryTool",
    "MissingUserIdError",
    "UserNotesReadTool",
    "UserNotesUpdateTool",
    "create_memory_tool_node",
    "create_memory_tools",
    "resolve_user_id",
]
