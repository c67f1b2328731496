"""The one prepared device run: build, the LM crash hunt, the CUDA tests, every GPU figure.

    python3 benchmarks/device/run_all.py --out DIR [--resume FILE] [--budget 470] [--size full|tiny]
                                         [--build auto|none|installed] [--only STAGES] [--redo STAGES]

Writes ``DIR/device_results.json`` (the figures, one record per stage) and
``DIR/device_run.log`` (every command and its output), plus the pytest JUnit files. Stages,
in this order, each a child process with its own time limit (capped by what is left of
``--budget`` seconds, so one hang cannot eat the lease):

1. ``probe``: the machine (GPU by nvidia-smi, Python, compilers, package versions).
2. ``build``: ``--build auto`` configures and builds the core and, where nvcc is found,
   the CUDA module with CMake + Ninja straight into ``python/fastamfm`` (no pip, no
   network; ``-O3 -g``, not stripped, for readable backtraces; the GPU's own architecture); ``none`` uses
   the modules already built in ``python/``; ``installed`` the pip-installed fastamfm.
   Then ``import fastamfm``: when ``nvidia-smi`` sees a GPU and ``fastamfm.HAS_CUDA`` is
   false, the run says so on a ``FATAL`` line, marks the GPU stages blocked, still runs
   the CPU ones, and exits 2.
3. ``lm_tests``: the LM tests and ``lm_crash_hunt.py`` under ``python -X faulthandler``
   with ``segv_backtrace.c`` preloaded (compiled here; the native frames of a crash), and
   on a crash the same command again under gdb/cuda-gdb in batch mode where one exists;
   frames of the fastamfm modules are resolved with addr2line into the log.
4. ``gpu_tests``: ``pytest -m gpu`` over every test file that has a ``gpu`` mark:
   passed / failed / skipped with their reasons. On a GPU machine a CUDA test skipped
   for want of a device is a failure of the run.
5. ``bandwidth``, ``embedding``, ``amfm``, ``reference_index``, ``neural``, ``reward``,
   ``training``: the sections of ``compare.py`` (its docstring says what each measures).

On a lent GPU machine (this workplace's device tool: the checkout travels, ``../shared``
does not, and the machine has no network), prepare the carried folders here first, then
make one call:

    python3 benchmarks/device/run_all.py --prepare-data --prepare-wheels  # .device-data, .whl
    device run: command "python3 benchmarks/device/run_all.py --out $OUT",
                carry [".device-data", ".whl"], timeout_s 560

Resuming: stages already in the JSON (at ``DIR`` or ``--resume FILE``, e.g. the JSON a
previous device call brought back, copied into ``.device-out/`` and carried) are skipped, except the
probe and the build, which run every call (a fresh machine has no modules: built again
when they do not import), and a
stage a killed run left ``started`` (retried once, then ``abandoned``). ``--redo`` runs
named stages again. Exit status: 0 when every stage is ok or unavailable (a package or
device that is not there, said in the JSON), 1 when one failed, crashed or timed out, 2
for the FATAL case above. ``--size``: ``full`` where a GPU is seen, else ``tiny`` (the
CPU dry run of ``tests/test_device_script.py``: the same code paths, seconds each; the
figure sections then share one process, one import of torch).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
if str(REPO) not in sys.path:  # run as a file: python3 benchmarks/device/run_all.py
    sys.path.insert(0, str(REPO))

from benchmarks.device.compare import SECTIONS  # noqa: E402  (imports neither fastamfm nor torch)

RESULTS, LOG = "device_results.json", "device_run.log"
# (stage, its time limit in seconds): limits are caps; what is left of the budget is the other cap.
STAGES = [("probe", 60), ("build", 300), ("lm_tests", 150), ("gpu_tests", 200), ("bandwidth", 90),
          ("embedding", 90), ("amfm", 120), ("reference_index", 90), ("neural", 150), ("reward", 90),
          ("training", 150)]
GPU_STAGES = {"gpu_tests", *SECTIONS}
# The markers segv_backtrace.c writes around the native frames of a fatal signal.
NATIVE_START, NATIVE_END = "native backtrace (segv_backtrace)", "=== end of native backtrace ==="
DONE = {"ok", "unavailable", "failed", "crashed", "timeout", "blocked", "abandoned", "not run"}
PACKAGES = ("numpy", "scipy", "pybind11", "pytest", "hypothesis", "torch", "transformers", "tokenizers",
            "sentence-transformers", "bert-score", "peft", "trl", "accelerate", "faiss-cpu", "faiss-gpu",
            "faiss-gpu-cu12", "cupy-cuda13x", "cupy-cuda12x", "kenlm", "cmake", "ninja")


DATA_SETS = ("dstc6_t2_evaluation", "twcs_airlines")  # what the figures and the CUDA tests read
CARRIED_DATA = REPO / ".device-data"


def shared_data() -> Path | None:
    """Where the data is: $FASTAMFM_SHARED_DATA, ../shared/data, or .device-data in the checkout
    (the copy ``--prepare-data`` makes, for a device call to carry: ../shared does not travel)."""
    for candidate in (os.environ.get("FASTAMFM_SHARED_DATA"), REPO.parent / "shared" / "data", CARRIED_DATA):
        if candidate and (Path(candidate) / DATA_SETS[0]).is_dir():
            return Path(candidate)
    return None


def prepare_data() -> int:
    """Copies the data sets the run reads into .device-data (git-ignored; name it in the call's carry)."""
    source = shared_data()
    if source is None or source == CARRIED_DATA:
        print("no shared data beside the checkout to copy" if source is None else f"{CARRIED_DATA} is ready")
        return 0 if source else 1
    for name in DATA_SETS:
        if (source / name).is_dir():
            shutil.copytree(source / name, CARRIED_DATA / name, dirs_exist_ok=True)
    size = sum(f.stat().st_size for f in CARRIED_DATA.rglob("*") if f.is_file())
    print(f"copied {', '.join(DATA_SETS)} from {source} into {CARRIED_DATA} ({size / 2**20:.1f} MiB)")
    return 0


WHEELS = REPO / ".whl"
# Peers the lent GPU machine's image lacks (KINDS.md), small enough to carry (about 19 MB):
CARRIED_PACKAGES = ("bert-score==0.3.13", "faiss-cpu==1.15.1")


def prepare_wheels() -> int:
    """Downloads the carried peers' wheels for the GPU machine's Python 3.12 into .whl (git-ignored)."""
    platforms = [f"--platform={p}" for p in ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64",
                                               "manylinux_2_17_x86_64", "manylinux2014_x86_64")]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version",
               "3.12", "--implementation", "cp", *platforms, "-d", str(WHEELS), *CARRIED_PACKAGES]
    print(shlex.join(command))
    return subprocess.call(command)


def install_carried_wheels(run: "Run") -> list:
    """Installs .whl/*.whl (no index, no dependencies) into build/device-site, appended to the
    children's path (the image's own packages stay first); the names installed."""
    wheels = sorted(WHEELS.glob("*.whl")) if WHEELS.is_dir() else []
    if not wheels:
        return []
    site = REPO / "build" / "device-site"
    marker = site / ".installed"
    names = "\n".join(w.name for w in wheels)
    if not (marker.is_file() and marker.read_text() == names):  # installed by an earlier call on this machine
        result = run.command([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                              "--no-compile", "--upgrade", "--target", site, *wheels], 120, label="carried wheels")
        if result["returncode"] != 0:
            return [f"failed: {result['output'][-500:]}"]
        marker.write_text(names)
    run.env["PYTHONPATH"] = os.pathsep.join(filter(None, [run.env.get("PYTHONPATH"), str(site)]))
    return [w.name for w in wheels]


class Run:
    """The state of one call: the results file, the log, the budget, the child environment."""

    def __init__(self, args):
        self.args = args
        self.out = Path(args.out).resolve()
        self.out.mkdir(parents=True, exist_ok=True)
        self.results_path = self.out / RESULTS
        self.log_path = self.out / LOG
        self.deadline = time.monotonic() + args.budget
        self.data = self._load()
        self.fatal = None
        self.env = dict(os.environ, PYTHONUNBUFFERED="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                        TRANSFORMERS_VERBOSITY="error", HF_HUB_DISABLE_PROGRESS_BARS="1",
                        TOKENIZERS_PARALLELISM="false")
        data = shared_data()
        if data is not None:
            self.env["FASTAMFM_SHARED_DATA"] = str(data)
        if args.build == "installed":
            self.env["FASTAMFM_BENCHMARK_PACKAGE"] = "installed"
            self.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), str(REPO / "tests")]))
        else:
            self.env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [str(REPO / "python"), str(REPO), os.environ.get("PYTHONPATH")]))

    def _load(self) -> dict:
        for path in filter(None, [self.results_path, self.args.resume and Path(self.args.resume)]):
            if path.is_file():
                data = json.loads(path.read_text())
                data.setdefault("stages", {})
                data.setdefault("calls", [])
                return data
        return {"schema": 1, "stages": {}, "calls": []}

    def save(self) -> None:
        tmp = self.results_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, default=str))
        tmp.replace(self.results_path)

    def log(self, text: str) -> None:
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def say(self, text: str) -> None:
        print(text, flush=True)
        self.log(text)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def command(self, argv, limit: float, *, env=None, cwd=REPO, label: str = "") -> dict:
        """Runs argv in its own process group with a time limit; output to the log."""
        start = time.monotonic()
        self.log(f"\n$ {shlex.join(map(str, argv))}    # {label} limit {limit:.0f} s")
        proc = subprocess.Popen([str(a) for a in argv], cwd=cwd, env=env or self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=max(limit, 1))
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            timed_out = True
        self.log(output)
        seconds = time.monotonic() - start
        self.log(f"# exit {proc.returncode}{' (TIMED OUT)' if timed_out else ''} after {seconds:.1f} s")
        return {"returncode": proc.returncode, "timed_out": timed_out, "seconds": seconds, "output": output}


# --- stages --------------------------------------------------------------------------------
def which(*names) -> str | None:
    """A program on PATH, beside this Python (a venv's pip-installed cmake and ninja), or in CUDA's bin."""
    own = Path(sys.executable).parent
    for name in names:
        found = shutil.which(name) or ((own / name).is_file() and str(own / name))
        if found:
            return found
    for folder in ("/usr/local/cuda/bin", "/opt/nvidia/cuda/bin"):
        for name in names:
            if (Path(folder) / name).is_file():
                return str(Path(folder) / name)
    return None


def gpus_seen() -> list:
    """The GPUs nvidia-smi lists (empty without nvidia-smi or a driver)."""
    smi = which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.splitlines() if line.startswith("GPU ")]


def stage_probe(run: Run, limit: float) -> dict:
    from importlib import metadata

    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    tools = {}
    for tool, argv in (("gcc", ["gcc", "--version"]), ("c++", ["c++", "--version"]), ("nvcc", ["nvcc", "--version"]),
                       ("cmake", ["cmake", "--version"]), ("ninja", ["ninja", "--version"]),
                       ("gdb", ["gdb", "--version"]), ("cuda-gdb", ["cuda-gdb", "--version"])):
        path = which(argv[0])
        if path is None:
            continue
        try:
            out = subprocess.run([path, *argv[1:]], capture_output=True, text=True, timeout=20).stdout
            tools[tool] = [line for line in out.splitlines() if line.strip()][-1 if tool == "nvcc" else 0]
        except (OSError, subprocess.TimeoutExpired, IndexError):
            tools[tool] = path
    smi = {}
    if which("nvidia-smi"):
        query = run.command([which("nvidia-smi"), "--query-gpu=name,memory.total,driver_version,clocks.sm,"
                             "clocks.mem,clocks.max.sm,clocks.max.mem", "--format=csv,noheader"], 30, label="probe")
        smi = {"query": query["output"].strip()}
    os_release = {}
    if Path("/etc/os-release").is_file():
        for line in Path("/etc/os-release").read_text().splitlines():
            key, _, value = line.partition("=")
            if key in ("PRETTY_NAME", "VERSION_ID"):
                os_release[key] = value.strip('"')
    machine = {"gpus": gpus_seen(), "nvidia_smi": smi, "python": sys.version.split()[0],
               "python_executable": sys.executable, "platform": platform.platform(), "os": os_release,
               "cpus": os.cpu_count(), "tools": tools, "packages": versions}
    run.data["machine"] = machine
    run.data["calls"][-1]["machine"] = {k: machine[k] for k in ("gpus", "python", "cpus")}
    return {"status": "ok", "gpus": machine["gpus"], "python": machine["python"]}


def _import_check(run: Run, limit: float) -> dict:
    code = ("import json, fastamfm\n"
            "reason = fastamfm.runtime.cuda_unavailable_reason()\n"
            "print('IMPORT ' + json.dumps({'has_cuda': bool(fastamfm.HAS_CUDA), 'reason': reason,\n"
            "      'file': fastamfm.__file__}))\n")
    result = run.command([sys.executable, "-c", code], limit, label="import fastamfm")
    match = re.search(r"^IMPORT (.*)$", result["output"], flags=re.M)
    if result["returncode"] != 0 or not match:
        return {"imports": False, "error": result["output"][-3000:]}
    return {"imports": True, **json.loads(match.group(1))}


def stage_build(run: Run, limit: float) -> dict:
    mode = run.args.build
    record = {"mode": mode, "carried_wheels": install_carried_wheels(run)}
    if mode == "auto":
        check = _import_check(run, min(limit, 60))
        gpu = bool(gpus_seen())
        if check["imports"] and (check["has_cuda"] or not gpu) and not run.args.rebuild:
            record["note"] = "the modules built earlier in python/fastamfm import: not rebuilt"
        else:
            record.update(_cmake_build(run, limit, gpu))
            if record["status"] != "ok":
                return record
    check = _import_check(run, max(min(run.left(), 60), 5))
    record.update(check)
    if not check["imports"]:
        record["status"] = "failed"
        return record
    record["status"] = "ok"
    gpus = run.data.get("machine", {}).get("gpus") or gpus_seen()
    if gpus and not check["has_cuda"]:
        run.fatal = (f"FATAL: nvidia-smi sees {gpus[0]!r} but fastamfm.HAS_CUDA is false "
                     f"({check.get('reason')}); the GPU stages are blocked")
        run.say(run.fatal)
        record["fatal"] = run.fatal
    return record


def _cmake_build(run: Run, limit: float, gpu: bool) -> dict:
    start = time.monotonic()
    build = REPO / "build" / "device"
    pybind = run.command([sys.executable, "-m", "pybind11", "--cmakedir"], 30, label="pybind11")
    if pybind["returncode"] != 0:
        return {"status": "failed", "error": "pybind11 is not installed for " + sys.executable}
    # Release's -O3 with debug information: pybind11 strips modules in Release builds, and a crash's
    # frames need the symbols (addr2line, gdb); RelWithDebInfo keeps them.
    configure = [which("cmake") or "cmake", "-S", REPO, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O3 -g -DNDEBUG", f"-DPython_EXECUTABLE={sys.executable}",
                 f"-Dpybind11_DIR={pybind['output'].strip().splitlines()[-1]}",
                 "-DFASTAMFM_TEST_HOOKS=ON"]  # the hooks some of the core tests drive it through
    if which("ninja"):
        configure += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={which('ninja')}"]
    nvcc = which("nvcc")
    if nvcc:
        configure += ["-DFASTAMFM_CUDA=ON", f"-DCMAKE_CUDA_COMPILER={nvcc}"]
        if gpu:
            configure.append("-DCMAKE_CUDA_ARCHITECTURES=native")
    else:
        configure.append("-DFASTAMFM_CUDA=OFF")
    result = run.command(configure, min(limit, run.left()), label="configure")
    if result["returncode"] != 0 and "-DCMAKE_CUDA_ARCHITECTURES=native" in configure:
        # CMake < 3.24, or the GPU not answering at configure time: the CMakeLists' own list (80, 90)
        shutil.rmtree(build, ignore_errors=True)
        configure.remove("-DCMAKE_CUDA_ARCHITECTURES=native")
        result = run.command(configure, min(limit, run.left()), label="configure (default CUDA architectures)")
    record = {"cuda_compiler": nvcc, "configure_seconds": result["seconds"],
              "configure": [str(a) for a in configure]}
    if result["returncode"] != 0:
        return {**record, "status": "failed", "error": result["output"][-3000:]}
    jobs = str(max(1, min(os.cpu_count() or 1, 32)))
    result = run.command([which("cmake") or "cmake", "--build", build, "-j", jobs],
                         max(limit - (time.monotonic() - start), 5), label="build")
    record.update(build_seconds=result["seconds"], warnings=result["output"].count("warning:"))
    if result["timed_out"] or result["returncode"] != 0:
        return {**record, "status": "timeout" if result["timed_out"] else "failed", "error": result["output"][-3000:]}
    return {**record, "status": "ok"}


def segv_library(run: Run) -> str | None:
    """Compiles segv_backtrace.c (once per machine); its path, or None without a C compiler."""
    target = REPO / "build" / "device-tools" / "libsegv_backtrace.so"
    if target.is_file():
        return str(target)
    cc = which("cc", "gcc", "clang")
    if cc is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    result = run.command([cc, "-shared", "-fPIC", "-O1", "-g", "-o", target, HERE / "segv_backtrace.c"], 60,
                         label="segv_backtrace")
    return str(target) if result["returncode"] == 0 else None


def crashed(result: dict) -> bool:
    output = result["output"]
    return (result["returncode"] is not None and result["returncode"] < 0) or result["returncode"] in (134, 139) \
        or "Fatal Python error" in output or NATIVE_START in output


def crash_excerpt(output: str, size: int = 8000) -> str:
    """What a crashed command's output says about the crash: faulthandler's report (the
    Python frames, at most ``size`` / 2 characters) and segv_backtrace's section whole up to
    its end marker (the native frames and the module map, at most 4 * ``size``); the last
    ``size`` characters where neither is there. A plain tail lost one or the other: the
    module map runs long in a venv with many libraries loaded, and the native frames carry
    long paths on a Python built as a shared library (pyenv's 3.9, 3.10)."""
    fatal, native = output.find("Fatal Python error"), output.find(NATIVE_START)
    pieces = []
    if fatal >= 0:
        stop = native if native > fatal else len(output)
        pieces.append(output[fatal:min(stop, fatal + size // 2)])
    if native >= 0:
        stop = output.find(NATIVE_END, native)
        stop = len(output) if stop < 0 else stop + len(NATIVE_END)
        pieces.append(output[native:min(stop, native + 4 * size)])
    return "\n...\n".join(pieces) if pieces else output[-size:]


def symbolise(run: Run, output: str) -> list:
    """addr2line of the frames in fastamfm's modules: 'module(+0xoffset)' -> function at file:line."""
    addr2line, cxxfilt = which("addr2line"), which("c++filt")
    frames = re.findall(r"(\S*fastamfm\S*\.so)\(([^)+]*)\+(0x[0-9a-f]+)\)", output)
    lines = []
    for module, symbol, offset in frames[:60]:
        name = Path(module).name
        if symbol:  # an exported symbol: its name says where (the offset is from the symbol)
            if cxxfilt:
                symbol = subprocess.run([cxxfilt, symbol], capture_output=True, text=True, timeout=30).stdout.strip()
            lines.append(f"{name} {symbol} +{offset}")
        elif addr2line and Path(module).is_file():  # an offset into the module: function and line (-g build)
            out = subprocess.run([addr2line, "-f", "-C", "-i", "-e", module, offset], capture_output=True, text=True,
                                 timeout=30).stdout.strip().replace("\n", " | ")
            lines.append(f"{name} +{offset}: {out}")
        else:
            lines.append(f"{name} +{offset}")
    return lines


def under_debugger(run: Run, argv: list, limit: float) -> str | None:
    """The crashing command again under gdb (or cuda-gdb, which debugs host code too), batch mode."""
    debugger = which("gdb", "cuda-gdb")
    if debugger is None:
        return None
    env = {k: v for k, v in run.env.items() if k != "LD_PRELOAD"}
    result = run.command([debugger, "-batch", "-ex", "set pagination off", "-ex", "run", "-ex", "thread apply all bt",
                          "--args", *argv], limit, env=env, label=f"{Path(debugger).name} batch")
    output = result["output"]
    start = output.find("received signal")  # the program's own output before it is in the record already
    return f"{Path(debugger).name}: " + output[max(start - 200, 0):][:20000]


def pytest_counts(junit: Path) -> dict:
    if not junit.is_file():
        return {}
    root = ET.parse(junit).getroot()
    counts, skipped = Counter(), Counter()
    failures = []
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "errors"
                failures.append(f"{name}: {(child.get('message') or '')[:300]}")
            elif child.tag == "skipped":
                outcome = "skipped"
                skipped[(child.get("message") or "")[:200]] += 1
        counts[outcome] += 1
    return {**{k: counts.get(k, 0) for k in ("passed", "failed", "errors", "skipped")},
            "skip_reasons": dict(skipped.most_common()), "failures": failures[:50]}


def stage_lm_tests(run: Run, limit: float) -> dict:
    tiny = run.size == "tiny"
    library = segv_library(run)
    env = dict(run.env)
    if library:
        env["LD_PRELOAD"] = " ".join(filter(None, [library, env.get("LD_PRELOAD")]))
    junit = run.out / "lm_junit.xml"
    tests = (["tests/test_lm_estimation.py::test_many_workers_and_python_threads_train_the_same_model"] if tiny else
             sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").glob("test_lm_*.py")) +
             ["tests/test_counting_in_parts.py"])
    hunt = ["--quick", "--threads", "2", "--workers", "3,16"] if tiny else ["--repeat", "3"]
    commands = [[sys.executable, "-X", "faulthandler", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                 f"--junitxml={junit}", *tests],
                [sys.executable, "-X", "faulthandler", "-m", "benchmarks.device.lm_crash_hunt", *hunt]]
    record = {"native_backtrace": "segv_backtrace.c preloaded" if library else "unavailable: no C compiler",
              "python": sys.version.split()[0]}
    status = "ok"
    for argv in commands:
        result = run.command(argv, max(min(limit, run.left()), 5), env=env, label="lm_tests")
        label = "pytest" if "pytest" in argv else "crash_hunt"
        record[f"{label}_seconds"] = result["seconds"]
        summary = [line for line in result["output"].splitlines() if line.strip()][-1:] or [""]
        record[f"{label}_summary"] = summary[0][:300]
        if crashed(result):
            status = "crashed"
            record["crash"] = {"command": shlex.join(map(str, argv)), "returncode": result["returncode"],
                               "output_tail": crash_excerpt(result["output"]), "frames": symbolise(run, result["output"])}
            run.say(f"CRASH in lm_tests: {shlex.join(map(str, argv))} (exit {result['returncode']})")
            debug = under_debugger(run, argv, max(min(90, run.left() - 5), 5))
            record["crash"]["debugger"] = debug or "unavailable: neither gdb nor cuda-gdb is installed"
        elif result["timed_out"]:
            status = "timeout" if status == "ok" else status
        elif result["returncode"] != 0 and status == "ok":
            status = "failed"
    record.update(pytest_counts(junit))
    record["status"] = status
    return record


def gpu_test_files() -> list:
    return sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").glob("test_*.py")
                  if re.search(r"pytest\.mark\.gpu\b", p.read_text(encoding="utf-8")))


def stage_gpu_tests(run: Run, limit: float) -> dict:
    junit = run.out / "gpu_junit.xml"
    files = gpu_test_files()
    env = dict(run.env)
    library = segv_library(run)
    if library:
        env["LD_PRELOAD"] = " ".join(filter(None, [library, env.get("LD_PRELOAD")]))
    if run.size == "tiny":
        files = [f for f in files if Path(f).name in ("test_gpu.py", "test_runtime.py")]
    result = run.command([sys.executable, "-X", "faulthandler", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-m", "gpu", f"--junitxml={junit}", *files], max(min(limit, run.left()), 5),
                         env=env, label="gpu_tests")
    record = {"files": files, "seconds": result["seconds"], **pytest_counts(junit)}
    # pytest: 0 all passed, 1 some failed, 5 none collected/run
    if crashed(result):
        record["status"] = "crashed"
        record["output_tail"] = result["output"][-6000:]
        record["frames"] = symbolise(run, result["output"])
    elif result["timed_out"]:
        record["status"] = "timeout"
    elif result["returncode"] not in (0, 5):
        record["status"] = "failed"
    else:
        record["status"] = "ok"
    # skipped for want of a device (not of faiss's or CuPy's GPU build, or of data)
    no_device = sum(n for reason, n in record.get("skip_reasons", {}).items()
                    if re.search(r"CUDA|GPU|device", reason, flags=re.I) and not re.search(r"faiss|cupy", reason,
                                                                                          flags=re.I))
    record["skipped_for_want_of_a_device"] = no_device
    if run.gpu and no_device:
        record["status"] = "failed"
        record["error"] = f"{no_device} CUDA tests skipped on a machine where nvidia-smi sees a GPU"
        run.say(f"FAILED: {record['error']}")
    return record


def stage_sections(run: Run, names: list, limit: float) -> dict:
    """compare.py's sections in one child process; {section: record}."""
    target = run.out / ".sections.json"
    if target.exists():
        target.unlink()
    work = REPO / "build" / "device-work"
    work.mkdir(parents=True, exist_ok=True)
    result = run.command([sys.executable, "-m", "benchmarks.device.compare", *names, "--size", run.size,
                          "--json", target, "--work", work], max(min(limit, run.left()), 5), label="figures")
    records = json.loads(target.read_text()) if target.is_file() else {}
    target.unlink(missing_ok=True)
    out = {}
    for name in names:
        if name in records:
            out[name] = records[name]
        elif result["timed_out"]:
            # the first section without a record is the one that ran out of time
            first = not any(out[n]["status"] == "timeout" for n in out)
            out[name] = ({"status": "timeout", "seconds": result["seconds"]} if first else
                         {"status": "not run", "reason": "the section before it timed out"})
        else:
            out[name] = {"status": "crashed" if crashed(result) else "failed", "returncode": result["returncode"],
                         "output_tail": result["output"][-4000:]}
    return out


# --- the run -------------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="folder for the JSON, the log and the JUnit files")
    parser.add_argument("--prepare-data", action="store_true",
                        help="copy the data the run reads into .device-data (for a device call to carry), then stop")
    parser.add_argument("--prepare-wheels", action="store_true",
                        help="download the peers the GPU machine lacks (bert-score, faiss-cpu) into .whl, then stop")
    parser.add_argument("--resume", help="a results JSON of an earlier call: its stages are not run again")
    parser.add_argument("--budget", type=float, default=470.0, help="seconds for the whole run (default 470)")
    parser.add_argument("--size", choices=("full", "tiny"), help="default: full where a GPU is seen, else tiny")
    parser.add_argument("--build", choices=("auto", "none", "installed"), default="auto")
    parser.add_argument("--rebuild", action="store_true", help="build even when the modules import")
    parser.add_argument("--only", default="", help="comma-separated stages to consider (default: all)")
    parser.add_argument("--redo", default="", help="comma-separated stages to run again even if recorded")
    parser.add_argument("--limit", action="append", default=[], metavar="STAGE=SECONDS",
                        help="another time limit for a stage (e.g. build=1200 on a slow machine)")
    args = parser.parse_args(argv)
    if args.prepare_data or args.prepare_wheels:
        return (prepare_data() if args.prepare_data else 0) or (prepare_wheels() if args.prepare_wheels else 0)
    if not args.out:
        parser.error("--out DIR is required")
    names = [name for name, _ in STAGES]
    only = [s for s in args.only.split(",") if s] or names
    redo = {s for s in args.redo.split(",") if s}
    unknown = (set(only) | redo) - set(names)
    if unknown:
        parser.error(f"unknown stage(s) {', '.join(sorted(unknown))}; stages: {', '.join(names)}")

    run = Run(args)
    run.gpu = bool(gpus_seen())
    run.size = args.size or ("full" if run.gpu else "tiny")
    call = {"started": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv[1:], "size": run.size,
            "budget_s": args.budget, "gpu_seen": run.gpu}
    run.data["calls"].append(call)
    run.say(f"device run: size {run.size}, budget {args.budget:.0f} s, GPU {'seen' if run.gpu else 'not seen'}, "
            f"results {run.results_path}")
    stages = run.data["stages"]
    limits = dict(STAGES)
    for item in args.limit:
        stage, _, seconds = item.partition("=")
        if stage not in limits or not seconds.replace(".", "", 1).isdigit():
            parser.error(f"--limit takes STAGE=SECONDS with a stage of {', '.join(names)}, got {item!r}")
        limits[stage] = float(seconds)

    def decide(name) -> str:
        """"run", or why not (and records it)."""
        previous = stages.get(name, {})
        state = previous.get("status")
        # the probe and the build run every call: another call may be on a fresh machine without modules
        if name not in ("probe", "build") and name not in redo:
            if state == "started" and previous.get("attempts", 1) >= 2:
                stages[name] = {**previous, "status": "abandoned"}
                return "abandoned (a killed run left it started twice)"
            if state in DONE:
                return f"{state} (recorded; --redo {name} to run it again)"
        if run.fatal and name in GPU_STAGES:
            stages[name] = {"status": "blocked", "reason": run.fatal}
            return "blocked"
        return "run"

    handled = set()
    for name in names:
        if name not in only or name in handled:
            continue
        why = decide(name)
        if why != "run":
            run.say(f"{name}: {why}")
            run.save()
            continue
        batch = [name]
        if run.size == "tiny" and name in SECTIONS:
            # the dry run measures every remaining section in one process (one import of torch)
            batch += [s for s in SECTIONS if s in only and s != name and s not in handled and decide(s) == "run"]
        handled.update(batch)
        limit = min(sum(limits[s] for s in batch), run.left() - 2)
        if limit < 5:
            for s in batch:
                stages[s] = {"status": "not run", "reason": f"the {args.budget:.0f} s budget was spent"}
                run.say(f"{s}: not run (budget spent)")
            run.save()
            continue
        for s in batch:
            stages[s] = {"status": "started", "attempts": stages.get(s, {}).get("attempts", 0) + 1}
        run.save()
        start = time.monotonic()
        try:
            if name in SECTIONS:
                records = stage_sections(run, batch, limit)
            else:
                records = {name: globals()[f"stage_{name}"](run, limit)}
        except Exception as exc:  # noqa: BLE001 - one stage's bug must not end the run
            import traceback

            records = {s: {"status": "failed", "error": f"{type(exc).__name__}: {exc}",
                           "traceback": traceback.format_exc()[-3000:]} for s in batch}
        for s, record in records.items():
            record.setdefault("seconds", time.monotonic() - start)
            record["attempts"] = stages[s]["attempts"]
            stages[s] = record
            run.say(f"{s}: {record['status']} ({record['seconds']:.1f} s)")
        run.save()
    call["ended"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    bad = sorted(s for s, r in stages.items() if r.get("status") in ("failed", "crashed", "timeout", "abandoned"))
    run.data["summary"] = {"stages": {s: r.get("status") for s, r in stages.items()}, "problems": bad,
                           "fatal": run.fatal}
    run.save()
    run.say(f"summary: {json.dumps(run.data['summary']['stages'])}")
    if run.fatal:
        run.say(run.fatal)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
