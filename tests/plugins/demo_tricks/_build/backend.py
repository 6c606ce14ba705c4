"""A build backend in the standard library only (PEP 517 and PEP 660), so that this
package installs with nothing but pip: ``pip install .``, ``pip install -e .``, also with
``--no-build-isolation`` in an environment without setuptools' wheel support.

It reads ``[project]`` (name, version, description, requires-python, dependencies) and
``[project.entry-points]`` from pyproject.toml and packs the packages listed in
``[tool.simlab-build] packages``. Prefer setuptools or hatchling? Replace
``[build-system]`` in pyproject.toml and delete this folder.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _names(meta: dict) -> tuple[str, str]:
    project = meta["project"]
    return re.sub(r"[-_.]+", "_", project["name"]).lower(), project["version"]


def _metadata(meta: dict) -> str:
    project = meta["project"]
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _entry_points(meta: dict) -> str:
    out = []
    for group, entries in meta["project"].get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{k} = {v}" for k, v in entries.items()]
        out.append("")
    return "\n".join(out)


def _dist_info(meta: dict) -> dict[str, bytes]:
    name, version = _names(meta)
    info = f"{name}-{version}.dist-info"
    return {f"{info}/METADATA": _metadata(meta).encode(),
            f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: _build.backend\n"
                             b"Root-Is-Purelib: true\nTag: py3-none-any\n",
            f"{info}/entry_points.txt": _entry_points(meta).encode()}


def _write_wheel(directory: str, files: dict[str, bytes], meta: dict) -> str:
    name, version = _names(meta)
    wheel = f"{name}-{version}-py3-none-any.whl"
    files = {**files, **_dist_info(meta)}
    record_name = f"{name}-{version}.dist-info/RECORD"
    records = []
    with zipfile.ZipFile(Path(directory) / wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in sorted(files.items()):
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{path},sha256={digest.decode()},{len(data)}")
        records.append(f"{record_name},,")
        z.writestr(record_name, "\n".join(records) + "\n")
    return wheel


def _package_files(meta: dict) -> dict[str, bytes]:
    files = {}
    for package in meta["tool"]["simlab-build"]["packages"]:
        for path in sorted((ROOT / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    return files


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings=None) -> list[str]:
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    meta = _project()
    return _write_wheel(wheel_directory, _package_files(meta), meta)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    """A wheel holding only a .pth file that puts this folder on sys.path."""
    meta = _project()
    name, _ = _names(meta)
    return _write_wheel(wheel_directory, {f"_{name}_editable.pth": f"{ROOT}\n".encode()}, meta)


def build_sdist(sdist_directory, config_settings=None) -> str:
    meta = _project()
    name, version = _names(meta)
    base = f"{name}-{version}"
    files = {**_package_files(meta), "pyproject.toml": (ROOT / "pyproject.toml").read_bytes(),
             "_build/backend.py": Path(__file__).read_bytes(),
             "PKG-INFO": _metadata(meta).encode()}
    with tarfile.open(Path(sdist_directory) / f"{base}.tar.gz", "w:gz") as tar:
        for path, data in sorted(files.items()):
            entry = tarfile.TarInfo(f"{base}/{path}")
            entry.size = len(data)
            tar.addfile(entry, io.BytesIO(data))
    return f"{base}.tar.gz"
