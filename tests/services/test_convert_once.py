"""Each file of a run is converted once: the analysis converts it (its findings agree with that
conversion) with the helper import the tree will use and keeps the result; the convert stage writes
the kept conversions and converts only what the analysis did not (notebooks, files changed since)."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source, convert_tree, tree as tree_module
from analysis.convert.core.result import KeptConversion
from analysis.scan.source import analyze_and_convert
from porting_site.projects.models import ConvertedFile, Finding
from porting_site.projects import storage
from porting_site.projects.services import run_analyze_batch, run_analyze_finish, run_convert, run_create, run_unpack
from tests import factories
from tests.site import data

MODULE = b'import torch\n\n\ndef mix(a, b):\n    return torch.einsum("ij,jk->ik", a, b)\n'
SCRIPT = b"import torch\n\nx = torch.zeros(3)\ny = x.masked_fill(x > 0, 1.0)\n"
NOTEBOOK = (b'{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, '
            b'"source": ["import torch\\n", "x = torch.ones(2)"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')


def _converting(monkeypatch) -> list[str]:
    converted: list[str] = []
    real = tree_module._convert_batch

    def counting(batch, target, ms_version):
        converted.extend(rel for rel, _, _ in batch)
        return real(batch, target, ms_version)

    monkeypatch.setattr(tree_module, "_convert_batch", counting)
    return converted


@pytest.mark.django_db
def test_the_convert_stage_writes_the_analysis_conversions_and_converts_only_the_rest(settings, tmp_path, monkeypatch):
    data.use_tmp_storage(settings, tmp_path)
    team, user = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Mixer")
    files = {"pkg/__init__.py": b"", "pkg/mix.py": MODULE, "train.py": SCRIPT, "explore.ipynb": NOTEBOOK}
    run = run_create(project=project, archive=factories.upload("m.zip", factories.zip_of(files)), user=user,
                     enqueue=False)
    for batch in run_unpack(run_id=run.pk):
        run_analyze_batch(run_id=run.pk, paths=batch)
    run_analyze_finish(run_id=run.pk)
    converted = _converting(monkeypatch)
    run_convert(run_id=run.pk)

    # the analysis converted every .py file using torch; notebooks, and files with no torch (an instant
    # pass through the converter), convert here
    assert sorted(converted) == ["explore.ipynb", "pkg/__init__.py"]
    texts = {c.file.path: c.text for c in ConvertedFile.objects.filter(run=run).select_related("file")}
    assert "from .ms_support import einsum" in texts["pkg/mix.py"]  # the tree's helper import, not an inline copy
    assert texts["train.py"] == convert_source(SCRIPT.decode(), path="train.py", ms_version=run.ms_version,
                                               support="ms_support").text
    # the finding says what the converted tree shows: the helper is imported, not written into the file
    einsum = Finding.objects.get(run=run, torch_api="torch.einsum")
    assert "imported from ms_support" in einsum.message
    # the kept conversions are in the tree now: not left on disk (they would count against the team)
    assert not storage.kept_conversions_dir(run.pk).exists()


def test_a_kept_conversion_of_other_text_or_settings_is_converted_again(tmp_path, monkeypatch):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "mix.py").write_bytes(MODULE)
    (src / "train.py").write_bytes(SCRIPT)
    specs = tree_module.support_imports(src)
    assert specs == {"pkg/__init__.py": ".ms_support", "pkg/mix.py": ".ms_support", "train.py": "ms_support"}
    kept = {rel: analyze_and_convert((src / rel).read_bytes(), rel, ms_version="2.10", support=spec)[1]
            for rel, spec in specs.items()}
    assert kept["pkg/__init__.py"] is None  # no torch: nothing converted, the tree does it (at no cost)
    kept = {rel: k for rel, k in kept.items() if k is not None}
    (src / "train.py").write_bytes(SCRIPT + b"z = x.sum()\n")  # changed after the analysis
    kept["pkg/mix.py"] = KeptConversion(**{**kept["pkg/mix.py"].__dict__, "support": None})  # another import
    converted = _converting(monkeypatch)
    fresh = convert_tree(src, tmp_path / "a", ms_version="2.10", jobs=1)
    converted.clear()
    reused = convert_tree(src, tmp_path / "b", ms_version="2.10", jobs=1, kept=kept)
    assert sorted(converted) == ["pkg/__init__.py", "pkg/mix.py", "train.py"]
    assert [r.path for r in reused.files] == [r.path for r in fresh.files]
    assert (tmp_path / "b" / "pkg" / "mix.py").read_text() == (tmp_path / "a" / "pkg" / "mix.py").read_text()


def test_a_fitting_kept_conversion_is_written_as_the_tree_would_write_it(tmp_path, monkeypatch):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "mix.py").write_bytes(MODULE)
    specs = tree_module.support_imports(src)
    kept = {"pkg/mix.py": analyze_and_convert(MODULE, "pkg/mix.py", ms_version="2.10", support=specs["pkg/mix.py"])[1]}
    converted = _converting(monkeypatch)
    fresh = convert_tree(src, tmp_path / "a", ms_version="2.10", jobs=1)
    assert converted == ["pkg/__init__.py", "pkg/mix.py"]
    converted.clear()
    reused = convert_tree(src, tmp_path / "b", ms_version="2.10", jobs=1, kept=kept)
    assert converted == ["pkg/__init__.py"]
    for rel in ("pkg/mix.py", "pkg/ms_support.py", ".porting/layer_map.json"):
        assert (tmp_path / "b" / rel).read_text() == (tmp_path / "a" / rel).read_text(), rel
    assert [r.to_dict() for r in reused.files] == [r.to_dict() for r in fresh.files]
