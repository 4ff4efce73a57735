"""Helper definitions (written where a call has no one-call MindSpore counterpart) and their emission."""
