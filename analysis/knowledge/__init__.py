"""The knowledge base: API mapping tables (generated data) and migration rules."""
from .mapping import ApiEntry, ApiMapping, ParamDiff, load_mapping

# Bumped whenever the data files or the rule catalogue change meaning; each run
# records it so a re-analysis can tell knowledge-base changes from code changes.
KNOWLEDGE_BASE_VERSION = "2026.11.2"

__all__ = ["ApiEntry", "ApiMapping", "ParamDiff", "load_mapping", "KNOWLEDGE_BASE_VERSION"]
