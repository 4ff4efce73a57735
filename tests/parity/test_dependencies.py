"""Dependencies as uploads declare them (issue 26): read statically from
requirements*.txt, pyproject.toml, setup.cfg and setup.py; installed as
wheels only (toolz from PyPI, a small pure-Python wheel the worker does not
have: einops is in this worker's environment already) into a cached
read-only layer; the box puts it on the child's path."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from analysis.parity import check_parity
from analysis.parity.dependencies import DependencyPolicy, build_layer, declared, verdict


def _write(root, files):
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    return root


def test_every_declaration_format_is_read_without_running_it(tmp_path):
    root = _write(tmp_path / "repo", {
        "requirements.txt": "einops>=0.6  # tensors\n-r other.txt\ngit+https://example.org/x.git\n",
        "demo/requirements-dev.txt": "tqdm\n",
        "pyproject.toml": '''
            [project]
            dependencies = ["torch>=2", "rich; python_version < '3'"]
            [tool.poetry.dependencies]
            python = "^3.9"
            pyyaml = "^6.0"
        ''',
        "setup.cfg": "[options]\ninstall_requires =\n    attrs\n",
        "setup.py": "import os\nos.system('echo never run')\nREQS = ['six']\nsetup(name='x', install_requires=REQS)\n",
    })
    found = [(d["requirement"], d["source"]) for d in declared(root)]
    assert found == [("tqdm", "demo/requirements-dev.txt"), ("einops>=0.6", "requirements.txt"),
                     ("-r other.txt", "requirements.txt"), ("git+https://example.org/x.git", "requirements.txt"),
                     ("torch>=2", "pyproject.toml"), ("rich; python_version < '3'", "pyproject.toml"),
                     ("pyyaml>=6.0", "pyproject.toml"), ("attrs", "setup.cfg"), ("six", "setup.py")]


def test_the_site_installs_nothing_unless_it_opts_in():
    # An upload's requirements.txt must not make a worker reach PyPI by default: the settings leave
    # PORTING_DEPS_CACHE empty, which the policy reads as "no layer".
    env = {k: v for k, v in os.environ.items() if not k.startswith("PORTING_DEPS_")}
    probe = ("import porting_site.settings as s; from analysis.parity.dependencies import DependencyPolicy; "
             "print(repr(s.PORTING_DEPS_CACHE), DependencyPolicy.from_env({'PORTING_DEPS_CACHE': s.PORTING_DEPS_CACHE}))")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["''", "None"]
    opted = subprocess.run([sys.executable, "-c", probe], env=dict(env, PORTING_DEPS_CACHE="/srv/deps"),
                           capture_output=True, text=True, timeout=120)
    assert "'/srv/deps' DependencyPolicy(cache_dir=PosixPath('/srv/deps')" in opted.stdout


def test_what_is_refused_says_why(tmp_path):
    policy = DependencyPolicy(cache_dir=tmp_path, deny=frozenset({"tqdm"}))
    assert verdict("torch>=2", policy)[1].startswith("the worker's own framework")
    assert verdict("numpy", policy)[1].startswith("already provided by the worker (numpy ")  # never shadowed
    assert verdict("tqdm", policy)[1] == "on this site's deny list"
    assert verdict("git+https://example.org/x.git", policy)[1].startswith("not a package from the index")
    assert verdict("rich; python_version < '3'", policy)[1] == "its environment marker does not apply here"
    assert verdict("argparse", policy)[1].startswith("part of Python's standard library")
    assert verdict("tensorflow>=2", policy)[1].startswith("another deep-learning framework")
    allow_only = DependencyPolicy(cache_dir=tmp_path, allow=frozenset({"toolz"}))
    assert verdict("attrs-nope", allow_only)[1] == "not on this site's allow list"
    assert verdict("toolz>=0.12", allow_only)[1] == ""


PROJECT = {
    "pyproject.toml": '''
        [project]
        name = "tiny"
        dependencies = ["toolz>=0.12", "torch"]
    ''',
    "tiny/__init__.py": "",
    "tiny/model.py": '''
        import toolz
        import torch.nn as nn

        class Tiny(nn.Module):
            def __init__(self, dim=6):
                super().__init__()
                # A stub in toolz' place has no __version__: construction fails without the real package.
                self.major = int(toolz.__version__.split(".")[0]) + 1
                self.fc = nn.Linear(dim, 3)

            def forward(self, x):
                return self.fc(x) * self.major
    ''',
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    import importlib.util

    assert importlib.util.find_spec("toolz") is None, "these tests need a package the worker lacks; toolz is installed"
    return tmp_path_factory.mktemp("deps-cache")


def test_einops_wheel_goes_to_a_cached_read_only_layer(tmp_path, cache):
    root = _write(tmp_path / "repo", PROJECT)
    policy = DependencyPolicy(cache_dir=cache)
    layer = build_layer(root, policy)
    assert [i["requirement"] for i in layer.installed] == ["toolz"], (layer.failed, layer.refused)
    assert (layer.path / "toolz" / "__init__.py").is_file()
    assert not os.stat(layer.path / "toolz" / "__init__.py").st_mode & 0o222  # read-only
    assert [r["requirement"] for r in layer.refused] == ["torch"]
    started = time.monotonic()
    again = build_layer(root, policy)
    assert again.cached and again.path == layer.path and time.monotonic() - started < 1.0


def test_size_cap_and_an_empty_offline_wheelhouse_refuse_with_reasons(tmp_path, cache):
    root = _write(tmp_path / "repo", PROJECT)
    capped = build_layer(root, DependencyPolicy(cache_dir=tmp_path / "c1", max_mb=0))
    assert capped.path is None and "size cap of 0 MB" in capped.failed[0]["why"]
    (tmp_path / "wheelhouse").mkdir()
    offline = build_layer(root, DependencyPolicy(cache_dir=tmp_path / "c2", wheelhouse=tmp_path / "wheelhouse"))
    assert offline.path is None and offline.failed[0]["why"].startswith("no wheel could be fetched")


@pytest.mark.slow
def test_the_box_imports_the_declared_dependency(tmp_path, cache):
    root = _write(tmp_path / "repo", PROJECT)
    without = check_parity(root, loss_steps=2)
    report = check_parity(root, loss_steps=2, dependencies=DependencyPolicy(cache_dir=cache))
    before = {e["name"]: e for e in without["entry_points"]}["Tiny"]
    after = {e["name"]: e for e in report["entry_points"]}["Tiny"]
    assert before["status"] == "skipped" and "toolz" in before["load_notes"]["stubbed_modules"]
    assert "declare toolz in requirements.txt" in before["reason"]  # the one thing to add
    assert after["status"] == "pass", after["reason"]
    assert "toolz" not in (after.get("load_notes") or {}).get("stubbed_modules", [])
    assert [i["requirement"] for i in report["dependencies"]["installed"]] == ["toolz"]
