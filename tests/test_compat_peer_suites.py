"""The peers' own test suites, run against fastamfm.compat's drop-ins.

Each peer test file runs in a subprocess of its own (this file is also that subprocess's
entry point, see ``main``), where ``sacrebleu`` / ``rouge_score`` and all their
submodules in ``sys.modules`` are the compat packages: the peer tests import the names
they always import and get fastamfm's. The real packages stay untouched in this process.

Where the peer tests come from (never copied into this repository):

- sacrebleu: the test/ directory of its PyPI sdist, downloaded once with
  ``pip download sacrebleu==2.6.0 --no-deps --no-binary :all:`` into pytest's cache
  (``.pytest_cache``); ``FASTAMFM_SACREBLEU_TESTS=DIR`` points at a copy of that test/
  directory instead. Skipped, with the reason, when neither is reachable.
- rouge-score: the ``*_test.py`` files its installed package carries. Their data
  (``testdata/``, kept in google-research's repository, not on PyPI) is looked for beside
  them or in ``FASTAMFM_ROUGE_TESTDATA=DIR``; the tests that read it skip without it.

What does not run, by name, with the reason beside each: ``OUT_OF_SCOPE_FILES`` (whole
files about features the drop-ins leave out), ``DESELECTED`` (single tests of private
helpers), ``NEEDS_PUNKT`` and ``NEEDS_ROUGE_TESTDATA`` (skipped only when that data is
absent). Everything else must pass, and every name listed must still exist in the peer's
files (a stale entry fails).
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import fastamfm
from fastamfm.metrics.sacrebleu import SACREBLEU_VERSION

SACREBLEU_FILES = ["test_bleu.py", "test_chrf.py", "test_sentence_bleu.py", "test_significance.py"]
ROUGE_FILES = ["rouge_scorer_test.py", "scoring_test.py", "tokenize_test.py", "tokenizers_test.py"]

OUT_OF_SCOPE_FILES = {
    "sacrebleu": {
        "test_api.py": "every test reads sacrebleu's test-set registry (sacrebleu.dataset) or downloaded test sets",
        "test_dataset.py": "test-set downloads and sacrebleu.dataset",
        "test_ter.py": "TER (fastamfm has no TER)",
        "test_tokenizer_ter.py": "TER's tokenizer (fastamfm has no TER)",
    },
    "rouge_score": {
        "io_test.py": "rouge_score.io (scoring files into CSV) is not part of the drop-in",
    },
}

# "file::test" (the test's name without parameters) -> why it is left out.
DESELECTED = {
    "rouge_scorer_test.py::testLcsTable": "rouge-score's private LCS helpers _lcs_table/_backtrack_norec",
    "rouge_scorer_test.py::testUnionLcs": "rouge-score's private helpers _find_union/_union_lcs",
    "rouge_scorer_test.py::testSummaryLevelLcs": "rouge-score's private helper _summary_level_lcs",
}

# Skipped only when NLTK's punkt sentence model is not installed (split_summaries=True needs it).
NEEDS_PUNKT = {"rouge_scorer_test.py::testRougeLSumSentenceSplitting"}

_LARGE = ["target_large.txt", "prediction_large.txt"]
_SMALL = ["target.txt", "prediction.txt"]
_MULTI_0 = ["pyrouge_files/target_multi.0.txt", "pyrouge_files/prediction_multi.0.txt"]
_MULTI_ALL = [f"pyrouge_files/{kind}_multi.{i}.txt" for kind in ("target", "prediction") for i in range(250)]
# "file::test" -> the files of rouge-score's testdata/ it reads (skipped when one is absent).
NEEDS_ROUGE_TESTDATA = {
    **{f"rouge_scorer_test.py::{name}": _SMALL for name in
       ("testRouge1AgainstRouge155", "testRouge1AgainstRouge155WithStemming", "testRouge2AgainstRouge155",
        "testRouge2AgainstRouge155WithStemming", "testRougeLAgainstRouge155")},
    "rouge_scorer_test.py::testRougeLSumAgainstRouge155WithStemming": _MULTI_0,
    "rouge_scorer_test.py::testRougeLsumLarge": _LARGE,
    "scoring_test.py::testMultipleRougeTypes": _LARGE,
    "scoring_test.py::testConfidenceIntervalsAgainstRouge155": _LARGE,
    "scoring_test.py::testConfidenceIntervalsAgainstRouge155WithStemming": _LARGE,
    "scoring_test.py::testConfidenceIntervalsAgainstRouge155WithStemmingMultiLine": _MULTI_ALL,
}

SACREBLEU_TESTS_VARIABLE = "FASTAMFM_SACREBLEU_TESTS"
ROUGE_TESTDATA_VARIABLE = "FASTAMFM_ROUGE_TESTDATA"
# test_significance runs 10,000 approximate-randomization trials for 15 systems at import.
SUITE_TIMEOUT = 900


# --- the subprocess: one peer test file against the compat package -------------------------
def install_compat(peer: str) -> None:
    """Make ``peer`` and each of its submodules in ``sys.modules`` the compat modules, so
    ``import sacrebleu.metrics.bleu`` finds fastamfm's without loading a second copy."""
    package = importlib.import_module(f"fastamfm.compat.{peer}")
    sys.modules[peer] = package
    for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        sys.modules[peer + info.name[len(package.__name__):]] = importlib.import_module(info.name)


def installed_peer(peer: str) -> Path | None:
    """The directory of the installed peer package (found without importing it)."""
    spec = importlib.util.find_spec(peer)
    return Path(spec.submodule_search_locations[0]) if spec and spec.submodule_search_locations else None


def rouge_testdata(peer_dir: Path) -> Path:
    """Where rouge-score's testdata is: FASTAMFM_ROUGE_TESTDATA, else beside its tests."""
    return Path(os.environ.get(ROUGE_TESTDATA_VARIABLE) or peer_dir / "testdata")


def install_rouge_test_util(peer_dir: Path, testdata: Path) -> None:
    """rouge-score's test_util (its tests' data paths) belongs to the peer's tests: load the
    installed one as ``rouge_score.test_util``, its paths pointing into ``testdata``."""
    spec = importlib.util.spec_from_file_location("rouge_score.test_util", peer_dir / "test_util.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    own = str(peer_dir / "testdata")
    for name, value in list(vars(module).items()):
        if isinstance(value, str) and value.startswith(own):
            setattr(module, name, str(testdata) + value[len(own):])
    sys.modules["rouge_score.test_util"] = module
    # ``from rouge_score import test_util`` reads the package's attribute.
    sys.modules["rouge_score"].test_util = module


def punkt_installed() -> bool:
    """Whether NLTK can split sentences here (its punkt data is a separate download)."""
    try:
        import nltk

        nltk.sent_tokenize("One sentence. Another one.")
        return True
    except (ImportError, LookupError):
        return False


def item_key(item) -> str:
    return f"{item.path.name}::{item.name.split('[')[0]}"


class PeerSuitePlugin:
    """Leaves out the listed tests, skips those whose data is absent, and records every
    outcome in a JSON report for the parent process."""

    def __init__(self, report_path: str, testdata: Path | None):
        self.report_path = report_path
        self.report = {"passed": [], "failed": {}, "skipped": {}, "deselected": {}, "collected": []}
        self.testdata = testdata           # rouge-score's testdata directory; None for sacrebleu

    def _missing_data(self, key: str) -> list:
        return [f for f in NEEDS_ROUGE_TESTDATA.get(key, []) if not (self.testdata / f).exists()]

    def pytest_collection_modifyitems(self, config, items):
        keep, dropped = [], []
        punkt = punkt_installed()
        for item in items:
            key = item_key(item)
            self.report["collected"].append(key)
            if key in DESELECTED:
                self.report["deselected"][item.nodeid] = DESELECTED[key]
                dropped.append(item)
                continue
            if key in NEEDS_PUNKT and not punkt:
                item.add_marker(pytest.mark.skip(reason="needs NLTK's punkt model (nltk.download('punkt_tab'))"))
            if self.testdata is not None:
                missing = self._missing_data(key)
                if missing:
                    item.add_marker(pytest.mark.skip(reason=f"rouge-score's testdata is absent ({missing[0]}, ...): "
                                                            f"set {ROUGE_TESTDATA_VARIABLE}"))
                if item.cls is not None:
                    self._tolerate_missing_testdata(item.cls)
            keep.append(item)
        items[:] = keep
        config.hook.pytest_deselected(items=dropped)

    def _tolerate_missing_testdata(self, cls) -> None:
        """rouge-score's test classes read testdata in setUp before every test, though only
        the tests in NEEDS_ROUGE_TESTDATA (skipped without it) use what they read. Without
        the data, a setUp that stops at reading it lets the other tests run; what setUp
        does before the read (super().setUp(), the random seed) has run."""
        if getattr(cls, "_tolerates_missing_testdata", False):
            return
        original, prefix = cls.setUp, str(self.testdata)

        def setUp(test):
            try:
                original(test)
            except FileNotFoundError as exc:
                if not str(exc.filename).startswith(prefix):
                    raise

        cls.setUp = setUp
        cls._tolerates_missing_testdata = True

    def pytest_collectreport(self, report):
        if report.failed:
            self.report["failed"][f"collecting {report.nodeid}"] = str(report.longrepr)

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.report["failed"][report.nodeid] = str(report.longrepr)
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.report["skipped"][report.nodeid] = reason
        elif report.when == "call":
            self.report["passed"].append(report.nodeid)

    def pytest_sessionfinish(self, session, exitstatus):
        Path(self.report_path).write_text(json.dumps(self.report, indent=1))


def main(peer: str, test_file: str, report_path: str) -> int:
    testdata = None
    if peer == "rouge_score":
        peer_dir = installed_peer(peer)             # before the compat package takes its name
        testdata = rouge_testdata(peer_dir)
    install_compat(peer)
    if testdata is not None:
        install_rouge_test_util(peer_dir, testdata)
    plugin = PeerSuitePlugin(report_path, testdata)
    return int(pytest.main([test_file, "-q", "-p", "no:cacheprovider", "-c", "pytest.ini"], plugins=[plugin]))


# --- finding the peer tests ---------------------------------------------------------------
@pytest.fixture(scope="session")
def sacrebleu_tests(request, tmp_path_factory) -> Path:
    """sacrebleu's test/ directory (see the module docstring)."""
    if os.environ.get(SACREBLEU_TESTS_VARIABLE):
        return Path(os.environ[SACREBLEU_TESTS_VARIABLE])
    cache = getattr(request.config, "cache", None)
    root = cache.mkdir("fastamfm-peer-suites") if cache is not None else tmp_path_factory.mktemp("peer-suites")
    target = root / f"sacrebleu-{SACREBLEU_VERSION}" / "test"
    if (target / "test_bleu.py").exists():
        return target
    from fastamfm.io.cache_dir import build_lock

    with build_lock(target):                  # pytest-xdist workers download once
        if not (target / "test_bleu.py").exists():
            _download_sacrebleu_tests(root)
    return target


def _download_sacrebleu_tests(root: Path) -> None:
    download = root / "download"
    shutil.rmtree(download, ignore_errors=True)
    command = [sys.executable, "-m", "pip", "download", f"sacrebleu=={SACREBLEU_VERSION}", "--no-deps",
               "--no-binary", ":all:", "--dest", str(download), "--quiet"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"could not download sacrebleu {SACREBLEU_VERSION}'s sdist ({exc}); set {SACREBLEU_TESTS_VARIABLE}")
    archives = list(download.glob("sacrebleu-*.tar.gz"))
    if done.returncode != 0 or not archives:
        pytest.skip(f"could not download sacrebleu {SACREBLEU_VERSION}'s sdist from PyPI ({' '.join(command[1:])}): "
                    f"{done.stderr.strip()[-300:]}; set {SACREBLEU_TESTS_VARIABLE} to a copy of its test/ directory")
    prefix = f"sacrebleu-{SACREBLEU_VERSION}/test/"
    with tarfile.open(archives[0]) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(prefix) and m.isfile()]
        if not any(m.name == prefix + "test_bleu.py" for m in members):
            pytest.fail(f"sacrebleu {SACREBLEU_VERSION}'s sdist holds no {prefix}test_bleu.py any more")
        unpacked = root / "unpacked"
        shutil.rmtree(unpacked, ignore_errors=True)
        # The "data" filter (Python >= 3.9.17 / 3.10.12 / 3.11.4) refuses links and paths outside.
        options = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(unpacked, members=members, **options)
    destination = root / f"sacrebleu-{SACREBLEU_VERSION}"
    shutil.rmtree(destination, ignore_errors=True)
    (unpacked / f"sacrebleu-{SACREBLEU_VERSION}").rename(destination)
    shutil.rmtree(unpacked, ignore_errors=True)
    shutil.rmtree(download, ignore_errors=True)


def rouge_tests() -> Path:
    peer_dir = installed_peer("rouge_score")
    if peer_dir is None:
        pytest.skip("rouge-score is not installed (its test files come with it)")
    return peer_dir


# --- the tests: one subprocess per peer file ------------------------------------------------
def run_suite(peer: str, source: Path, run_dir: Path) -> dict:
    """Run one peer test file (copied into ``run_dir`` with what it reads) against the compat package."""
    (run_dir / "pytest.ini").write_text("[pytest]\n")     # the peer's own pytest settings stay out
    report = run_dir / "report.json"
    # The outer run's pytest options (PYTEST_ADDOPTS, xdist's worker variables) stay out.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # The subprocess imports this same fastamfm (a checkout on PYTHONPATH or an installed one).
    env["PYTHONPATH"] = os.pathsep.join([str(Path(fastamfm.__file__).parents[1]), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, __file__, peer, str(source), str(report)], cwd=run_dir, env=env,
                          capture_output=True, text=True, timeout=SUITE_TIMEOUT)
    if not report.exists():
        pytest.fail(f"{source.name} did not run (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(report.read_text())


def check_report(name: str, result: dict) -> None:
    failed = "\n\n".join(f"{test}:\n{text[-2000:]}" for test, text in result["failed"].items())
    assert not result["failed"], f"{len(result['failed'])} peer tests failed in {name}:\n{failed}"
    assert result["passed"], f"no peer test of {name} ran"
    listed = [k for k in {*DESELECTED, *NEEDS_PUNKT, *NEEDS_ROUGE_TESTDATA} if k.startswith(name + "::")]
    stale = [k for k in listed if k not in result["collected"]]
    assert not stale, f"listed here but no longer in {name}: {stale}"
    print(f"{name}: {len(result['passed'])} passed, {len(result['deselected'])} deselected, "
          f"{len(result['skipped'])} skipped")


@pytest.mark.slow
@pytest.mark.parametrize("name", SACREBLEU_FILES)
def test_sacrebleu_suite(name, sacrebleu_tests, tmp_path):
    # test_significance reads ./test/wmt17_en_de_systems.pkl.bz2: the run directory holds test/.
    shutil.copytree(sacrebleu_tests, tmp_path / "test")
    check_report(name, run_suite("sacrebleu", tmp_path / "test" / name, tmp_path))


@pytest.mark.parametrize("name", ROUGE_FILES)
def test_rouge_score_suite(name, tmp_path):
    source = rouge_tests() / name
    if not source.exists():
        pytest.skip(f"the installed rouge-score carries no {name}")
    shutil.copy(source, tmp_path / name)
    check_report(name, run_suite("rouge_score", tmp_path / name, tmp_path))


def test_out_of_scope_files_are_only_those_listed(sacrebleu_tests):
    """Every peer test file is run here or listed as out of scope, with its reason."""
    listed = {"sacrebleu": set(SACREBLEU_FILES), "rouge_score": set(ROUGE_FILES)}
    found = {"sacrebleu": {p.name for p in sacrebleu_tests.glob("test_*.py")},
             "rouge_score": {p.name for p in rouge_tests().glob("*_test.py")}}
    for peer, files in found.items():
        assert files == listed[peer] | set(OUT_OF_SCOPE_FILES[peer]), peer


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
