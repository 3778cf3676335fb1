"""Types of the ssc module and of the chains `compile` gives."""

import os
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, Union

import numpy as np

__version__: str

class CompileError(Exception):
    """ssc refused the description, or the command line."""

    message: str
    code: Optional[str]
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    diagnostics: List[Dict[str, Any]]

class Chain(Protocol):
    """An open chain: its pinned threads wait for frames."""

    def run(self, *frames: np.ndarray, out: Optional[Dict[str, np.ndarray]] = None,
            **named: np.ndarray) -> Dict[str, np.ndarray]:
        """One frame in, its outputs out: {output name: array}."""
    def submit(self, *frames: np.ndarray, out: Optional[Dict[str, np.ndarray]] = None,
               **named: np.ndarray) -> int:
        """Start a frame; its number, for `wait`."""
    def wait(self, frame: Optional[int] = None) -> Dict[str, np.ndarray]:
        """The outputs of a frame `submit` started."""
    def stats(self) -> Any:
        """Latency figures since `open`."""
    def checksum(self) -> int:
        """The sinks' checksum over every frame since `open`."""
    def close(self) -> None: ...
    def __enter__(self) -> "Chain": ...
    def __exit__(self, *exc: object) -> None: ...

class ChainModule(Protocol):
    """The module of one compiled chain."""

    INPUTS: List[Tuple[str, np.dtype, Tuple[int, ...]]]
    OUTPUTS: List[Tuple[str, np.dtype, Tuple[int, ...]]]
    THREADS: int
    Error: type
    Busy: type
    Timeout: type

    def open(self, cores: Optional[Sequence[int]] = None, spin_ns: int = 20000,
             fifo_priority: int = 0, lock_memory: bool = False, depth: int = 2,
             watchdog_ms: int = 0, **options: Any) -> Chain:
        """Start the chain's threads."""

def find_ssc_bin() -> str:
    """The path of the `ssc` command."""

def compile(source: Union[str, "os.PathLike[str]"], *flags: str,
            cache_dir: Union[None, str, "os.PathLike[str]"] = None) -> ChainModule:
    """The module of `ssc build SOURCE -t library FLAGS`, built once."""
