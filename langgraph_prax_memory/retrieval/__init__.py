"""Hybrid retrieval: intent weights, the arms, weighted RRF, decay, boost, reinforcement."""

from langgraph_prax_memory.retrieval._fusion import (
    RRF_K as RRF_K,
)
from langgraph_prax_memory.retrieval._fusion import (
    FusedCandidate,
    boost_factor,
    decay_factor,
    fuse,
    rank_candidates,
)

__all__ = ["FusedCandidate", "boost_factor", "decay_factor", "fuse", "rank_candidates"]

from langgraph_prax_memory.retrieval._recall import (
    LTM_ROOT as LTM_ROOT,
)
from langgraph_prax_memory.retrieval._recall import (
    RecallResult,
    assemble_hits,
    ltm_filter,
    ltm_namespace,
)

__all__ += ["RecallResult", "assemble_hits", "ltm_filter", "ltm_namespace"]

# used by the other packages of langgraph_prax_memory (not re-exported at the root)
from langgraph_prax_memory.retrieval._features import write_hubness  # noqa: E402
from langgraph_prax_memory.retrieval._recall import validity_filter  # noqa: E402
from langgraph_prax_memory.retrieval._recaller import Recaller  # noqa: E402

__all__ += ["Recaller", "validity_filter", "write_hubness"]

from langgraph_prax_memory.retrieval._calibration import FLOOR as FLOOR  # noqa: E402
from langgraph_prax_memory.retrieval._calibration import CosineScale  # noqa: E402
from langgraph_prax_memory.retrieval._precision import json_object, text_of  # noqa: E402
from langgraph_prax_memory.retrieval._recall import is_standing, profile_filter  # noqa: E402

__all__ += ["CosineScale", "is_standing", "json_object", "profile_filter", "text_of"]

# for the context's dated tier (the people a request calls by their relation to the user)
# and the long-term memory's class service (langgraph_prax_memory._classes)
from langgraph_prax_memory.retrieval._persons import (  # noqa: E402
    kin_named,
    relation_words,
    user_kin,
)
from langgraph_prax_memory.retrieval._recall import HISTORY_FIELD as HISTORY_FIELD  # noqa: E402

__all__ += ["kin_named", "relation_words", "user_kin"]
