"""Calls of torch functions: signature binding, the tables' renames and fixes, exact forms, compositions."""
