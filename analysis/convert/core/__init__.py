"""What every concern builds on: per-file context, walk state, names, scopes, imports, codegen, results."""
