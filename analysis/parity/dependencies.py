"""The third-party packages an upload declares (requirements*.txt,
pyproject.toml, setup.cfg, setup.py, all read statically), installed as
wheels only into a per-project cached folder that the parity box mounts
read-only and puts on the child's path.

Built in its own step, never inside the worker's environment: `pip download
--only-binary=:all: --no-deps` fetches one wheel at a time (no sdist, so no
setup.py of anyone's runs), its `Requires-Dist` is followed the same way, and
`pip install --no-deps --no-index --target` unpacks the wheels into the layer.
The worker's own packages (torch, MindSpore, numpy... whatever is installed
beside them) are never installed again: the layer adds, it never shadows.
"""
from __future__ import annotations

import ast
import configparser
import hashlib
import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

# Frameworks the worker owns and pins: a repository's own pin must not replace them.
WORKER_OWNED = frozenset(canonicalize_name(n) for n in (
    "torch", "torchvision", "torchaudio", "torchtext", "mindspore", "triton", "nvidia-cudnn-cu12",
    "nvidia-cublas-cu12"))
# Other deep-learning frameworks: hundreds of MB each, and nothing a PyTorch model needs to be
# checked against MindSpore (a tensorboard logger beside it is stubbed instead).
OTHER_FRAMEWORKS = frozenset(canonicalize_name(n) for n in (
    "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly", "jax", "jaxlib", "paddlepaddle",
    "paddlepaddle-gpu", "mxnet", "cntk", "onnxruntime-gpu", "nvidia-cuda-runtime-cu12"))
MAX_PACKAGES = 40  # declared ones plus what they require
SKIP_DIRS = {".git", ".porting", "__pycache__", "venv", ".venv", "node_modules", "build", "dist", "site-packages"}
DONE = ".complete"  # a layer is reused only when this marker is there
RECORD = "dependencies.json"


@dataclass(frozen=True)
class DependencyPolicy:
    """Where layers are kept and what may go in them (deployment settings)."""
    cache_dir: Path
    allow: frozenset[str] = frozenset()  # empty: any package not denied
    deny: frozenset[str] = frozenset()
    max_mb: int = 200  # all wheels of one layer together
    wheelhouse: Path | None = None  # offline: wheels only from this folder, never the index
    index_url: str | None = None
    timeout_s: int = 300

    @classmethod
    def from_env(cls, environ=os.environ) -> DependencyPolicy | None:
        """PORTING_DEPS_CACHE (unset: dependencies are not installed), _ALLOW and
        _DENY (comma-separated names), _MAX_MB, _WHEELHOUSE, _INDEX_URL."""
        cache = environ.get("PORTING_DEPS_CACHE")
        if not cache:
            return None

        def names(key: str) -> frozenset[str]:
            return frozenset(canonicalize_name(n) for n in environ.get(key, "").split(",") if n.strip())

        wheelhouse = environ.get("PORTING_DEPS_WHEELHOUSE")
        return cls(cache_dir=Path(cache), allow=names("PORTING_DEPS_ALLOW"), deny=names("PORTING_DEPS_DENY"),
                   max_mb=int(environ.get("PORTING_DEPS_MAX_MB", "200")),
                   wheelhouse=Path(wheelhouse) if wheelhouse else None,
                   index_url=environ.get("PORTING_DEPS_INDEX_URL") or None)


@dataclass
class Layer:
    path: Path | None = None
    installed: list[dict] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    declared: list[dict] = field(default_factory=list)
    cached: bool = False

    def to_dict(self) -> dict:
        return {"path": str(self.path) if self.path else None, "installed": self.installed,
                "refused": self.refused, "failed": self.failed, "declared": self.declared, "cached": self.cached}


# --- what the upload declares ------------------------------------------------

def _files(root: Path, pattern: str) -> list[Path]:
    out = []
    for path in sorted(root.rglob(pattern)):
        rel = path.relative_to(root)
        if path.is_symlink() or not path.is_file() or any(p in SKIP_DIRS or p.startswith(".") for p in rel.parts[:-1]):
            continue
        out.append(path)
    return out


def _requirement_lines(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _setup_py(text: str) -> list[str]:
    """install_requires=[...] of a setup() call, a literal list or a name bound to one."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup":
            for keyword in node.keywords:
                if keyword.arg == "install_requires":
                    value = names.get(keyword.value.id, keyword.value) if isinstance(keyword.value, ast.Name) \
                        else keyword.value
                    try:
                        return [str(v) for v in ast.literal_eval(value)]
                    except (ValueError, SyntaxError, TypeError):
                        return []
    return []


def declared(root: Path) -> list[dict]:
    """[{requirement, source}] in the order found; nothing is run."""
    found: list[dict] = []

    def add(lines, source: str) -> None:
        for line in lines:
            found.append({"requirement": line, "source": source})

    for path in _files(root, "requirements*.txt"):
        add(_requirement_lines(path.read_text(encoding="utf-8", errors="replace")), path.relative_to(root).as_posix())
    for path in _files(root, "pyproject.toml"):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            continue
        rel = path.relative_to(root).as_posix()
        add([str(r) for r in (data.get("project") or {}).get("dependencies") or []], rel)
        poetry = ((data.get("tool") or {}).get("poetry") or {}).get("dependencies") or {}
        add([name if not isinstance(spec, str) or spec in ("*", "") else f"{name}{_poetry(spec)}"
             for name, spec in poetry.items() if name.lower() != "python"], rel)
    for path in _files(root, "setup.cfg"):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
            add(_requirement_lines(parser.get("options", "install_requires", fallback="")),
                path.relative_to(root).as_posix())
        except configparser.Error:
            continue
    for path in _files(root, "setup.py"):
        add(_setup_py(path.read_text(encoding="utf-8", errors="replace")), path.relative_to(root).as_posix())
    return found


def _poetry(spec: str) -> str:
    """Poetry's '^1.2' / '~1.2' as a PEP 440 lower bound (close enough to fetch a wheel)."""
    spec = spec.strip()
    if spec[:1] in "^~" and spec[1:2].isdigit():
        return f">={spec[1:]}"
    return spec if spec[:1] in "<>=!" else f"=={spec}"


# --- what may be installed -----------------------------------------------------

def _present(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def verdict(line: str, policy: DependencyPolicy) -> tuple[Requirement | None, str]:
    """(the requirement, '') when it may be fetched, else (maybe None, why not)."""
    if line.startswith("-") or "://" in line or line.startswith((".", "/")) or " @ " in line:
        return None, "not a package from the index (an option, a URL or a local path)"
    try:
        req = Requirement(line)
    except InvalidRequirement as exc:
        return None, f"unreadable requirement ({exc})"
    name = canonicalize_name(req.name)
    if req.marker is not None and not req.marker.evaluate(dict(default_environment(), extra="")):
        return req, "its environment marker does not apply here"
    if name in WORKER_OWNED:
        return req, "the worker's own framework, kept at the worker's version"
    if req.name in sys.stdlib_module_names or name in sys.stdlib_module_names:
        return req, "part of Python's standard library (an old PyPI copy would shadow it)"
    if name in OTHER_FRAMEWORKS and name not in policy.allow:
        return req, "another deep-learning framework (hundreds of MB), not needed for the check; allow it by name"
    if name in policy.deny:
        return req, "on this site's deny list"
    if policy.allow and name not in policy.allow:
        return req, "not on this site's allow list"
    version = _present(req.name)
    if version is not None:
        return req, f"already provided by the worker ({req.name} {version})"
    return req, ""


# --- building the layer -------------------------------------------------------

def _pip(args: list[str], policy: DependencyPolicy, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run([sys.executable, "-m", "pip", *args, "--isolated", "--no-input", "--retries", "1",
                           "--timeout", "20"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=policy.timeout_s)


def _source_args(policy: DependencyPolicy) -> list[str]:
    if policy.wheelhouse is not None:
        return ["--no-index", "--find-links", str(policy.wheelhouse)]
    return ["--index-url", policy.index_url] if policy.index_url else []


def _requires(wheel: Path) -> list[str]:
    """Requires-Dist of a wheel (without extras' requirements)."""
    with zipfile.ZipFile(wheel) as archive:
        meta = next((n for n in archive.namelist() if n.endswith(".dist-info/METADATA")), None)
        text = archive.read(meta).decode("utf-8", errors="replace") if meta else ""
    out = []
    for line in text.splitlines():
        if line.startswith("Requires-Dist:"):
            value = line.split(":", 1)[1].strip()
            if ";" not in value or "extra" not in value.split(";", 1)[1]:  # an extra's needs are optional
                out.append(value)
    return out


def layer_key(requirements: list[str], policy: DependencyPolicy) -> str:
    """One layer per set of requirements, interpreter and policy."""
    blob = json.dumps({"requirements": sorted(requirements), "python": sys.version_info[:2], "platform": sys.platform,
                       "allow": sorted(policy.allow), "deny": sorted(policy.deny), "max_mb": policy.max_mb,
                       "wheelhouse": str(policy.wheelhouse or "")})
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def build_layer(root: Path, policy: DependencyPolicy) -> Layer:
    """The upload's dependency layer: reused from the cache when built before,
    else fetched (wheels only) and unpacked, then made read-only. Never raises
    for what the upload declares; what could not be installed says why."""
    layer = Layer(declared=declared(root))
    wanted: list[Requirement] = []
    for item in layer.declared:
        req, why = verdict(item["requirement"], policy)
        if why:
            if item["requirement"] not in {r["requirement"] for r in layer.refused}:  # once, from its first file
                layer.refused.append({"requirement": item["requirement"], "source": item["source"], "why": why})
        elif req is not None and canonicalize_name(req.name) not in {canonicalize_name(w.name) for w in wanted}:
            wanted.append(req)
    if not wanted:
        return layer
    target = Path(policy.cache_dir) / layer_key([str(r) for r in wanted], policy)
    if (target / DONE).is_file():
        record = json.loads((target / RECORD).read_text(encoding="utf-8"))
        layer.installed, layer.failed, layer.cached = record["installed"], record["failed"], True
        layer.refused += [r for r in record.get("refused_later", [])]
        layer.path = target / "site" if layer.installed else None
        return layer
    Path(policy.cache_dir).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="deps-", dir=policy.cache_dir))
    try:
        refused_later = _fetch_and_install(wanted, policy, work, layer)
        (work / RECORD).write_text(json.dumps({"installed": layer.installed, "failed": layer.failed,
                                               "refused_later": refused_later}), encoding="utf-8")
        layer.refused += refused_later
        shutil.rmtree(work / "wheels", ignore_errors=True)
        (work / DONE).write_text("", encoding="utf-8")
        _read_only(work)
        try:
            work.rename(target)
        except OSError:  # another run built the same layer meanwhile: use that one
            _writable(work)
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        _writable(work)
        shutil.rmtree(work, ignore_errors=True)
        raise
    layer.path = target / "site" if layer.installed else None
    return layer


def _fetch_and_install(wanted: list[Requirement], policy: DependencyPolicy, work: Path, layer: Layer) -> list[dict]:
    wheels_dir, site = work / "wheels", work / "site"
    wheels_dir.mkdir()
    queue = [(r, "declared") for r in wanted]
    seen: set[str] = set()
    wheels: list[tuple[Path, str, str]] = []
    refused_later: list[dict] = []
    total = 0
    while queue and len(seen) < MAX_PACKAGES:
        req, why_needed = queue.pop(0)
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        before = set(wheels_dir.iterdir())
        result = _pip(["download", "--only-binary=:all:", "--no-deps", "--dest", str(wheels_dir),
                       *_source_args(policy), str(req)], policy, work)
        new = [p for p in set(wheels_dir.iterdir()) - before if p.suffix == ".whl"]
        if result.returncode != 0 or not new:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no wheel"]
            layer.failed.append({"requirement": str(req), "why": f"no wheel could be fetched: {tail[0][:200]}",
                                 "needed_by": why_needed})
            continue
        wheel = new[0]
        if total + wheel.stat().st_size > policy.max_mb * 1024 * 1024:
            wheel.unlink()
            layer.failed.append({"requirement": str(req), "needed_by": why_needed,
                                 "why": f"over this site's size cap of {policy.max_mb} MB for one project's layer"})
            continue
        total += wheel.stat().st_size
        version = wheel.name.split("-")[1]
        wheels.append((wheel, req.name, version))
        for line in _requires(wheel):
            inner, why = verdict(line, policy)
            if inner is None:
                continue
            if why and not why.startswith(("already provided", "its environment marker")):
                refused_later.append({"requirement": line, "source": f"required by {req.name}", "why": why})
            elif not why:
                queue.append((inner, f"required by {req.name}"))
    if wheels:
        result = _pip(["install", "--no-deps", "--no-index", "--only-binary=:all:", "--no-compile", "--target",
                       str(site), *[str(w) for w, _, _ in wheels]], policy, work)
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["pip failed"]
            layer.failed += [{"requirement": n, "why": f"unpacking failed: {tail[0][:200]}"} for _, n, _ in wheels]
        else:
            layer.installed += [{"requirement": n, "version": v, "wheel": w.name} for w, n, v in wheels]
    return refused_later


def _read_only(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _writable(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)

