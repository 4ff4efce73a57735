"""The snippet corpus: hand-written snippets are the files in the subfolders (semantic/, gaps/);
the modules beside this one generate the rest from tables."""
from __future__ import annotations


def generated() -> list[tuple[str, str]]:
    """(name, source) for every table-generated snippet."""
    from tests.convert.corpus import optimizers, tables

    return tables.generate() + optimizers.generate()
