"""Finding, converting and caching METEOR 1.5's English resources.

METEOR's data ships with the METEOR 1.5 jar, which the ``pycocoevalcap`` wheel carries
(``pip install ".[meteor]" in the fastamfm checkout``): inside ``meteor-1.5.jar`` the function words,
WordNet synsets with irregular forms and the nonbreaking prefixes of its normalizer;
beside it ``data/paraphrase-en.gz``. The first use converts them into one compact
binary file in the cache directory (``$FASTAMFM_CACHE_DIR``, else
``$XDG_CACHE_HOME/fastamfm``, else ``~/.cache/fastamfm``), written atomically; later
uses memory-map it, which takes milliseconds. Each process loads it once and shares
it between calls and threads.

The cache file is named by the CONTENT of the jar and the paraphrase table (their
SHA-256, remembered per file version by ``models.file_digest``), not by where they are
installed: every virtual environment with the same pycocoevalcap shares one file
(``fastamfm cache`` lists it, ``fastamfm cache clear meteor`` removes it). Processes that
start the conversion at once take turns (``io.cache_dir.build_lock``): one converts,
the others then load its file.
"""
from __future__ import annotations

import gzip
import hashlib
import logging
import os
import threading
import time
import warnings
import zipfile
from pathlib import Path

from .. import _core
from ..io.cache_dir import CACHE_KINDS, build_lock, cache_dir
from ..io.signals import cleanup_on_signals
from ..models.file_digest import file_digest
from ..progress import waiting

log = logging.getLogger(__name__)

JAR_NAME = "meteor-1.5.jar"
PARAPHRASE_NAME = "paraphrase-en.gz"
_JAR_MEMBERS = {
    "function_words": "function/english.words",
    "synsets": "synonym/english.synsets",
    "exceptions": "synonym/english.exceptions",
    "nonbreaking_prefixes": "nonbreaking/english.prefixes",
}
_CACHE_FORMAT = "6"
# Its first build, in the words of the log line that announces it.
BUILD_TIME = CACHE_KINDS["meteor"][1]

HOW_TO_GET = (
    'install them with  pip install ".[meteor]" in the fastamfm checkout  (this installs pycocoevalcap, whose wheel '
    "carries meteor-1.5.jar and data/paraphrase-en.gz), or pass resources=<path to meteor-1.5.jar or "
    "to the directory holding it>; to score without them use stages=(\"exact\", \"stem\"), which is "
    "not METEOR 1.5"
)


class MeteorResourcesNotFound(FileNotFoundError):
    """METEOR 1.5's resource files could not be found; the message says how to get them."""


_lock = threading.Lock()
_loaded: dict[str, _core.MeteorResources] = {}


def _installed_pycocoevalcap_dir() -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "meteor"


def locate(resources="auto") -> tuple[Path, Path]:
    """(jar, paraphrase table) for ``resources``: ``"auto"`` (an installed pycocoevalcap),
    a path to ``meteor-1.5.jar``, or a directory holding it (with ``data/paraphrase-en.gz``)."""
    if resources == "auto":
        base = _installed_pycocoevalcap_dir()
        if base is None:
            raise MeteorResourcesNotFound(f"METEOR 1.5 resources not found (pycocoevalcap is not installed): {HOW_TO_GET}")
        jar = base / JAR_NAME
    else:
        path = Path(os.fspath(resources)).expanduser()
        if not path.exists():
            raise MeteorResourcesNotFound(f"METEOR 1.5 resources not found: resources={str(path)!r} does not exist "
                                          f"(it names {JAR_NAME} or the directory holding it): {HOW_TO_GET}")
        jar = path / JAR_NAME if path.is_dir() else path
        base = jar.parent
    candidates = [base / "data" / PARAPHRASE_NAME, base / PARAPHRASE_NAME]
    paraphrase = next((p for p in candidates if p.is_file()), candidates[0])
    missing = [str(p) for p in (jar, paraphrase) if not p.is_file()]
    if missing:
        raise MeteorResourcesNotFound(f"METEOR 1.5 resources not found ({', '.join(missing)} missing): {HOW_TO_GET}")
    return jar, paraphrase


def _cache_key(jar: Path, paraphrase: Path) -> str:
    """The cache file's key: the cache format and the SHA-256 of each file's content (not
    its path or modification time, so that every environment holding the same files
    shares one cache file)."""
    h = hashlib.sha256(_CACHE_FORMAT.encode())
    for p in (jar, paraphrase):
        h.update(f"|{file_digest(p)}".encode())
    return h.hexdigest()[:20]


def read_texts(jar: Path, paraphrase: Path | None) -> dict:
    """The resource texts as bytes, read from the jar and the gzipped table."""
    try:
        with zipfile.ZipFile(jar) as z:
            texts = {name: z.read(member) for name, member in _JAR_MEMBERS.items()}
    except (zipfile.BadZipFile, KeyError) as exc:
        raise _core.FormatError(f"{jar}: not a METEOR 1.5 jar ({exc})") from None
    if paraphrase is not None:
        try:
            with gzip.open(paraphrase, "rb") as f:
                texts["paraphrases"] = f.read()
        except (OSError, EOFError) as exc:
            raise _core.FormatError(f"{paraphrase}: not a readable gzip file ({exc})") from None
    return texts


def cache_path(jar: Path, paraphrase: Path) -> Path:
    """Where the converted form of these resource files is cached (the name changes
    with the files and with the cache format, so a stale file is never read)."""
    return cache_dir() / f"meteor-1.5-en-{_cache_key(jar, paraphrase)}.bin"


def load(resources="auto") -> _core.MeteorResources:
    """The resources for ``resources`` (see :func:`locate`), a cache file path, or an
    already loaded ``MeteorResources``; converted and cached on first use, loaded once
    per process."""
    if isinstance(resources, _core.MeteorResources):
        return resources
    if resources != "auto" and Path(os.fspath(resources)).suffix == ".bin":
        path = Path(os.fspath(resources)).expanduser()
        if not path.is_file():
            raise MeteorResourcesNotFound(f"METEOR resource cache {path} does not exist: {HOW_TO_GET}")
        key = f"file:{path.resolve()}"
        with _lock:
            if key not in _loaded:
                _loaded[key] = _core.MeteorResources.load(str(path))
            return _loaded[key]
    jar, paraphrase = locate(resources)
    key = _cache_key(jar, paraphrase)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        cached = cache_path(jar, paraphrase)
        if not cached.is_file():
            try:
                with build_lock(cached):
                    if not cached.is_file():       # another process may have built it while this one waited
                        _loaded[key] = _build(jar, paraphrase, cached)
                        return _loaded[key]
            except OSError as exc:  # a read-only cache directory: convert for this process only
                warnings.warn(f"could not write the METEOR resource cache {cached} ({exc}); set "
                              f"FASTAMFM_CACHE_DIR to a writable directory to skip the conversion next time",
                              RuntimeWarning, stacklevel=3)
                _loaded[key] = _core.MeteorResources.build(**read_texts(jar, paraphrase))
                return _loaded[key]
        _loaded[key] = _core.MeteorResources.load(str(cached))
        return _loaded[key]


def _build(jar: Path, paraphrase: Path, cached: Path) -> _core.MeteorResources:
    """Convert the resources into ``cached`` (once per content of the files) and load it."""
    log.info("converting METEOR 1.5's WordNet synonyms and paraphrase table into %s (once; %s)", cached,
             BUILD_TIME)
    start = time.perf_counter()
    with waiting("converting METEOR 1.5's resources (once)", steps=2) as converting:
        built = _core.MeteorResources.build(**read_texts(jar, paraphrase))
        converting.advance()
        cached.parent.mkdir(parents=True, exist_ok=True)
        with cleanup_on_signals():
            built.save(str(cached))
    log.info("METEOR resources converted in %.0f s", time.perf_counter() - start)
    return _core.MeteorResources.load(str(cached))
