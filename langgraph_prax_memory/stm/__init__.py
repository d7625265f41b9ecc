"""Short-term memory: the per-user scratchpad in ``{workspace}/memory/stm.json``.

Example:
    >>> import tempfile
    >>> from langgraph_prax_memory.config import MemoryConfig
    >>> from langgraph_prax_memory.stm import ScratchpadStore
    >>> stm = ScratchpadStore(MemoryConfig(data_dir=tempfile.mkdtemp()))
    >>> _ = stm.write("alice", "goal", "ship the STM layer", importance=0.7, tags=["task"])
    >>> [e.key for e in stm.all("alice")]
    ['goal']
"""

from langgraph_prax_memory.stm.compaction import deterministic_summary
from langgraph_prax_memory.stm.models import (
    COMPACTED_TAG as COMPACTED_TAG,
)
from langgraph_prax_memory.stm.models import (
    MAX_KEY_CHARS as MAX_KEY_CHARS,
)
from langgraph_prax_memory.stm.models import (
    PENDING_REVIEW_TAG as PENDING_REVIEW_TAG,
)
from langgraph_prax_memory.stm.models import (
    StmEntry,
    check_key,
)
from langgraph_prax_memory.stm.render import SCRATCHPAD_TITLE as SCRATCHPAD_TITLE
from langgraph_prax_memory.stm.render import format_scratchpad
from langgraph_prax_memory.stm.store import (
    STM_FILENAME as STM_FILENAME,
)
from langgraph_prax_memory.stm.store import (
    AsyncScratchpadStore,
    ScratchpadStore,
    StmCorruptError,
)

__all__ = [
    "AsyncScratchpadStore",
    "ScratchpadStore",
    "StmCorruptError",
    "StmEntry",
    "check_key",
    "deterministic_summary",
    "format_scratchpad",
]
