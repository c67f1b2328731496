"""Writers that never leave debris: ``write_text_atomic`` and ``AtomicWriter`` make a file
appear complete or not at all; ``atomic_directory`` does the same for a directory. Their
temporaries are removed on every error, on Ctrl-C and on SIGTERM/SIGHUP
(``signals.cleanup_on_signals``), and what they create gets the permissions a plain
``open``/``mkdir`` would (the umask)."""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from .. import _core
from .signals import cleanup_on_signals


@contextmanager
def discard_on_input_error(directory):
    """Removes ``directory`` (the part files of a streamed output) when the block
    raises a ValueError: bad input, which must change before a rerun, so its parts
    could never be resumed. An interruption (Ctrl-C, SIGTERM) keeps them for resuming."""
    try:
        yield
    except ValueError:
        if directory is not None and os.path.isdir(directory):
            shutil.rmtree(directory)
        raise


def write_text_atomic(path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` so readers never see a partial file."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    _core.write_file_atomic(os.fspath(path), data)



def _unique_sibling(path: Path, create) -> Path:
    """A new name beside ``path`` (``name.<8 random hex digits>.tmp``), created by ``create(name)``
    (which must fail with FileExistsError when the name is taken)."""
    for _ in range(100):
        candidate = path.with_name(f"{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            create(candidate)
            return candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"{path}: could not find a free temporary name beside it")


class AtomicWriter:
    """A text file written in pieces that appears at ``path`` only on success.

    Used by streaming writers: on an exception, Ctrl-C, SIGTERM or SIGHUP the
    temporary file is removed and any previous file at ``path`` is left untouched.
    The file gets the permissions ``open(path, "w")`` would give it (umask).
    """

    def __init__(self, path, mode: str = "w"):
        self.path = Path(path)
        self.mode = mode

    def __enter__(self):
        self._signals = cleanup_on_signals()
        self._signals.__enter__()
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
            fds = []
            self._tmp = _unique_sibling(self.path, lambda p: fds.append(os.open(p, flags, 0o666)))
            self._file = os.fdopen(fds[-1], self.mode, encoding=None if "b" in self.mode else "utf-8")
        except BaseException:
            self._signals.__exit__(None, None, None)
            raise
        return self._file

    def __exit__(self, exc_type, exc, tb):
        try:
            try:
                if exc_type is None:
                    self._file.flush()
                    os.fsync(self._file.fileno())
                self._file.close()
                if exc_type is None:
                    os.replace(self._tmp, self.path)
            finally:
                if os.path.lexists(self._tmp):
                    os.unlink(self._tmp)
        finally:
            self._signals.__exit__(exc_type, exc, tb)
        return False


@contextmanager
def atomic_directory(path):
    """Yields a new, empty directory beside ``path`` to fill; on success it replaces
    ``path`` (an existing directory there is removed), on any exception, Ctrl-C,
    SIGTERM or SIGHUP it is removed and ``path`` is left as it was. The directory
    gets the permissions ``mkdir`` would give it (umask)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with cleanup_on_signals():
        tmp = _unique_sibling(path, lambda p: os.mkdir(p, 0o777))
        try:
            yield tmp
            old = None
            if path.exists():
                old = tmp.with_name(tmp.name + ".old")
                path.rename(old)
            tmp.rename(path)
            if old is not None:
                shutil.rmtree(old)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp)
