"""ssc from Python: compile a chain, call it on numpy frames.

    import ssc
    fluoro = ssc.compile("examples/fluoro.ssc", "-ts", "fused", "2", "-D", "W=1760", "-D", "H=1760")
    with fluoro.open() as chain:
        outputs = chain.run(raw=raw, dark=dark, gain=gain)   # {name: ndarray}

`compile(source, *flags)` runs `ssc build SOURCE -t library FLAGS` (the
`ssc` command installed with this package) and imports the module it
writes: `INPUTS`, `OUTPUTS`, `open()`, and on the chain `open` gives
`run`, `submit`/`wait`, `stats()`, `checksum()` and the errors
(docs/library.md). What it builds is kept in a cache, keyed by the
source, the flags, the ssc version and the C compiler: a second `compile`
of the same chain, in this process or another, runs no C compiler. The
cache is `$SSC_PYTHON_CACHE`, else `$XDG_CACHE_HOME/ssc/python`, else
`~/.cache/ssc/python`; removing it is always safe.

A description ssc refuses raises `CompileError`, which carries the
rendered diagnostics and the first error's code, file, line and column.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

__all__ = ["compile", "CompileError", "find_ssc_bin", "__version__"]


def _version():
    try:
        from importlib.metadata import version

        return version("ssc")
    except Exception:  # running from a source tree without the package installed
        return "0+unknown"


__version__ = _version()


def find_ssc_bin():
    """The path of the `ssc` command: the one this package installed (the
    environment's scripts folder, or the user's), else `ssc` on PATH."""
    exe = "ssc" + (sysconfig.get_config_var("EXE") or "")
    folders = [sysconfig.get_path("scripts")]
    user = f"{os.name}_user"
    if user in sysconfig.get_scheme_names():
        folders.append(sysconfig.get_path("scripts", scheme=user))
    for folder in folders:
        path = Path(folder) / exe
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    found = shutil.which("ssc")
    if found:
        return found
    raise FileNotFoundError("the ssc command is not installed: `pip install ssc`, or put ssc on PATH")


class CompileError(Exception):
    """ssc refused the description, or the command line.

    message: the diagnostics as ssc renders them (file:line:col, the
    source line, the hint); code, file, line, column: the first error's
    (None for a bad command line, which has no position); diagnostics:
    every diagnostic as ssc's JSON object (`--message-format json`)."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        first = next((d for d in self.diagnostics if d.get("severity") == "error"), {})
        self.code = first.get("code")
        self.file = first.get("file")
        self.line = first.get("line")
        self.column = first.get("column")


# The flags compile sets itself.
_OWN_FLAGS = {"-t", "--target", "-od", "--outputdir", "-o", "--message-format"}
_memo = {}
_facts = {}


def _cache_root(cache_dir):
    if cache_dir is not None:
        return Path(cache_dir)
    if os.environ.get("SSC_PYTHON_CACHE"):
        return Path(os.environ["SSC_PYTHON_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ssc" / "python"


def _fact(what, cmd):
    """The first line of `cmd`'s output (the ssc version, the C compiler's),
    once a process; empty when it cannot run."""
    if what not in _facts:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            _facts[what] = (out.stdout or out.stderr).strip()
        except (OSError, subprocess.TimeoutExpired):
            _facts[what] = ""
    return _facts[what]


def _stat(path):
    st = os.stat(path)
    return f"{st.st_size}:{st.st_mtime_ns}"


def _source(source):
    """(text, path or None, name) of a path or a description's text."""
    if isinstance(source, os.PathLike) or ("\n" not in source and "{" not in source):
        path = Path(source).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"ssc.compile: no description file `{source}`")
        return path.read_text(encoding="utf-8"), path, path.stem
    m = re.search(r"^\s*chain\s+([A-Za-z_][A-Za-z0-9_]*)", source, re.M)
    return source, None, m.group(1) if m else "chain"


def compile(source, *flags, cache_dir=None):
    """The module of `ssc build SOURCE -t library FLAGS`, built once.

    source: a description's path, or its text. flags: `ssc build`'s
    options as separate strings (`"-ts", "fused", "2"`, `"-D", "W=1760"`).
    cache_dir: where built chains are kept (see the module's doc).
    Raises CompileError when ssc refuses the description or the flags."""
    flags = [str(f) for f in flags]
    own = [f for f in flags if f.split("=")[0] in _OWN_FLAGS]
    if own:
        raise ValueError(f"ssc.compile sets {own[0]} itself: give the other options of ssc build")
    text, path, name = _source(source)
    ssc = find_ssc_bin()
    cc = os.environ.get("CC", "cc")
    key = hashlib.sha256(
        json.dumps(
            {
                # The version, and the binary itself (a rebuilt ssc of one
                # version is another compiler).
                "ssc": _fact(ssc, [ssc, "--version"]),
                "binary": _stat(ssc),
                "cc": _fact("cc " + cc, [cc, "--version"]),
                "cflags": os.environ.get("CFLAGS", ""),
                "text": text,
                "where": str(path.parent) if path else os.getcwd(),
                "flags": flags,
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()[:24]
    if key in _memo:
        return _memo[key]
    root = _cache_root(cache_dir)
    built = root / f"{name}-{key}"
    if not (built / "done").is_file():
        _build(ssc, text, path, name, flags, root, built)
    spec = importlib.util.spec_from_file_location(f"ssc.chains.{name}_{key}", built / "lib" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    _memo[key] = module
    return module


def _build(ssc, text, path, name, flags, root, built):
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    try:
        given = path
        if given is None:
            given = work / f"{name}.ssc"
            given.write_text(text, encoding="utf-8")
        cmd = [ssc, "build", str(given), "-t", "library", "-od", str(work / "lib"), *flags,
               "--message-format", "json", "--color", "never"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise _error(out.stderr, given if path is None else None)
        (work / "done").write_text(" ".join(cmd) + "\n")
        try:
            os.replace(work, built)
        except OSError:  # another process built it first
            if not (built / "done").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _error(stderr, temporary):
    """The CompileError of ssc's standard error: one JSON diagnostic a
    line, or a command-line message."""
    diagnostics, other = [], []
    for line in stderr.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            d = None
        if isinstance(d, dict) and "severity" in d:
            if temporary is not None:  # a description given as text
                d = json.loads(line.replace(json.dumps(str(temporary))[1:-1], "<string>"))
            diagnostics.append(d)
        elif line.strip():
            other.append(line)
    rendered = "".join(d.get("rendered", "") for d in diagnostics) + "\n".join(other)
    return CompileError(rendered.strip() or "ssc build failed", diagnostics)
