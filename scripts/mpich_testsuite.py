#!/usr/bin/env python3
"""Runs MPICH's test suite (test/mpi) against mgen or natively, classifies every run, compares.

Usage: see scripts/mpich-testsuite.sh (the entry point) or `--help`.

What it does, in MPICH's own terms (facts read from test/mpi of MPICH 4.0.2):
- Each directory's `testlist` (`testlist.in` where configure would generate it) lists
  `program nprocs key=value...`; keys used here: arg=, env=, timeLimit=, xfail=, resultTest=,
  strict=, mpiversion=, mem=. `@largetest@` lines are off by default in MPICH's configure, and
  `@...dir@` lines name directories outside the chosen ones: both are skipped. A line naming a
  subdirectory is followed into that directory's testlist.
- Each program is built from the sources its directory's Makefile.am gives (`P_SOURCES`,
  default `P.c`), with `P_CPPFLAGS` and `P_LDADD` extras (-lm, util/dtypes.c), plus MPICH's
  helper library: util/mtest.c, mtest_common.c, mtest_single.c, dtypes.c and test/mpi/dtpools.
  configure's include/mpitestconf.h is replaced by a minimal one written in the work directory.
- A run passes as MPICH's `runtests` judges it: exit status 0 and the output is a " No Errors"
  line and nothing else (a "Test Passed" line is also accepted). resultTest=TestStatus and
  TestErrFatal pass only on a non-zero exit status; TestStatusNoErrors also needs " No Errors".
"""
import argparse
import collections
import concurrent.futures
import csv
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DIRS = "coll pt2pt datatype comm group topo rma init attr errhan".split()
OUTCOMES = ["pass", "unsupported", "wrong", "crash", "timeout", "not-built"]
TSV_FIELDS = ["dir", "test", "nprocs", "args", "outcome", "detail", "seconds"]
REPO = Path(__file__).resolve().parent.parent

# The defines MPICH's configure gives the tests on x86-64 Linux with gcc (the ones the chosen
# directories and the helpers test for); no GPU, no threads package, not strict-MPI mode.
MPITESTCONF = """\
/* Minimal stand-in for the mpitestconf.h MPICH's test/mpi configure generates (x86-64 Linux, gcc). */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_STRDUP 1
#define HAVE_USLEEP 1
#define HAVE_PTHREAD_H 1
#define HAVE_MPI_INTEGER16 1
#define SIZEOF_VOID_P 8
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define POINTERINT_t long
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
"""
DTPOOLSCONF = "/* Minimal stand-in for dtpools' configure output: nothing is needed on Linux. */\n"


@dataclass
class Program:
    name: str
    sources: list
    cppflags: list
    libs: list  # extra link arguments: -lm, dtypes


@dataclass
class Run:
    dir: str  # testlist directory relative to test/mpi (e.g. "coll", "rma")
    test: str
    nprocs: int
    args: list = field(default_factory=list)
    env: list = field(default_factory=list)
    time_limit: int = 0
    xfail: str = ""
    result_test: str = ""

    def key(self):
        return (self.dir, self.test, str(self.nprocs), self.args_text())

    def args_text(self):
        return " ".join(self.args + [f"env:{e}" for e in self.env])


# ---------------------------------------------------------------- reading MPICH's files


def read_makefile_am(path):
    """Variables of a Makefile.am (continuations joined, += appended, includes ignored)."""
    text = path.read_text().replace("\\\n", " ")
    vars = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        m = re.match(r"^\s*([A-Za-z0-9_]+)\s*(\+?=)\s*(.*)$", line)
        if not m:
            continue
        name, op, value = m.groups()
        vars[name] = (vars.get(name, "") + " " + value).strip() if op == "+=" else value.strip()
    return vars


def program_from_makefile(vars, name):
    """Sources, preprocessor flags and extra link arguments of program `name`."""
    canon = re.sub(r"[^A-Za-z0-9_]", "_", name)
    sources = vars.get(f"{canon}_SOURCES", f"{name}.c").split()
    sources = [s for s in sources if s.endswith(".c")]
    cppflags = [f for f in vars.get(f"{canon}_CPPFLAGS", "").split() if not f.startswith("$(")]
    libs = []
    ldadd = vars.get(f"{canon}_LDADD", "")
    if "-lm" in ldadd.split():
        libs.append("-lm")
    if "LDADDDATA" in ldadd or "libdtypes" in ldadd:
        libs.append("dtypes")
    return Program(name, sources, cppflags, libs)


def mpi_version_ok(want):
    try:
        return tuple(int(x) for x in want.split(".")) <= (4, 0)
    except ValueError:
        return True


def read_testlist(testdir, rel, skipped):
    """Runs listed by directory `rel` (relative to test/mpi), following subdirectory lines."""
    d = testdir / rel
    listfile = next((d / f for f in ("testlist.in", "testlist") if (d / f).exists()), None)
    if listfile is None:
        return []
    runs = []
    for raw in listfile.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            skipped.append((rel, line, "configure-dependent line, off by default"))
            continue
        words = line.split()
        if (d / words[0]).is_dir():
            runs += read_testlist(testdir, f"{rel}/{words[0]}", skipped)
            continue
        run = Run(rel, words[0], int(words[1]) if len(words) > 1 else 1)
        skip = None
        for kv in words[2:]:
            k, _, v = kv.partition("=")
            if k == "arg":
                run.args.append(v)
            elif k == "env":
                run.env.append(v)
            elif k == "timeLimit":
                run.time_limit = int(v)
            elif k == "xfail":
                run.xfail = v
            elif k == "resultTest":
                run.result_test = v
            elif k == "mpiversion" and not mpi_version_ok(v):
                skip = f"needs MPI {v}"
            elif k == "mem" and float(v) > 24:
                skip = f"needs {v} GB of memory"  # runtests skips a test needing more than the machine has
        if skip:
            skipped.append((rel, line, skip))
        else:
            runs.append(run)
    return runs


# ---------------------------------------------------------------- building


class Builder:
    """Compiles the helpers once and each listed program, with mgen-cc or MPICH's mpicc."""

    def __init__(self, testdir, work, compiler):
        self.testdir, self.work, self.cc = testdir, work, compiler
        self.cflags = ["-O1", "-g0", "-w"]
        inc = work / "include"
        inc.mkdir(parents=True, exist_ok=True)
        (inc / "mpitestconf.h").write_text(MPITESTCONF)
        (inc / "mtest_mpix.h").write_text(self.mtest_mpix())
        # dtpools_internal.h includes "../dtpoolsconf.h": found as <dir>/include/../dtpoolsconf.h.
        (work / "dtpools" / "include").mkdir(parents=True, exist_ok=True)
        (work / "dtpools" / "dtpoolsconf.h").write_text(DTPOOLSCONF)
        self.includes = [f"-I{inc}", f"-I{testdir / 'include'}", f"-I{testdir / 'dtpools' / 'include'}",
                         f"-I{work / 'dtpools' / 'include'}"]
        self.helpers_error = None
        self.lock = threading.Lock()

    def mtest_mpix(self):
        """MPICH's autogen writes mtest_mpix.h: the tests call some functions by the MPI_ name
        that this MPICH version only has as MPIX_ (MPI_Delete_error_class in 4.0.2); it maps
        each to the MPIX_ name. Derived here from the mpi.h the compiler sees."""
        probe = self.work / "mpix_probe.c"
        probe.write_text("#include <mpi.h>\n")
        seen = ""
        for flags in (["-E"], ["-E", "-dM"]):
            p = subprocess.run([self.cc] + flags + [str(probe)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, errors="replace")
            seen += p.stdout
        names = set(re.findall(r"\bP?MPIX?_\w+", seen))
        renames = sorted(n for n in names if n.startswith("MPIX_") and "MPI_" + n[5:] not in names)
        lines = ["/* Written by mgen's scripts/mpich_testsuite.py in place of MPICH's generated file. */",
                 "#ifndef MTEST_MPIX_H_INCLUDED", "#define MTEST_MPIX_H_INCLUDED"]
        lines += [f"#define MPI_{n[5:]} {n}" for n in renames]
        return "\n".join(lines + ["#endif", ""])

    def compile(self, args, cwd):
        p = subprocess.run([self.cc] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        return p.returncode, p.stdout

    def build_helpers(self, jobs):
        util, dtp = self.testdir / "util", self.testdir / "dtpools" / "src"
        objdir = self.work / "helpers"
        objdir.mkdir(exist_ok=True)
        mtest = [util / f for f in ("mtest.c", "mtest_common.c", "mtest_single.c")]
        dtpools = sorted(dtp.glob("*.c"))
        jobs_list = [(src, objdir / (src.stem + ".o")) for src in mtest + dtpools + [util / "dtypes.c"]]

        def one(item):
            src, obj = item
            if newer(obj, [src]):
                return src, 0, ""
            rc, out = self.compile(self.cflags + self.includes + ["-c", str(src), "-o", str(obj)], objdir)
            return src, rc, out

        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for src, rc, out in ex.map(one, jobs_list):
                if rc != 0:
                    self.helpers_error = f"helper {src.name}: {first_error(out)}"
                    return False
        objs = [o for s, o in jobs_list if s.name != "dtypes.c"]
        if not newer(self.work / "libmtest.a", objs):
            subprocess.run(["ar", "rcs", str(self.work / "libmtest.a")] + [str(o) for o in objs], check=True)
        self.dtypes_obj = str(objdir / "dtypes.o")
        return True

    def build(self, rel, prog):
        """Builds program `prog` of directory `rel`; returns None or the first error line."""
        if self.helpers_error:
            return self.helpers_error
        src = self.testdir / rel
        out_dir = self.work / rel
        out_dir.mkdir(parents=True, exist_ok=True)
        missing = [s for s in prog.sources if not (src / s).exists()]
        if missing:
            return f"source {missing[0]} not found"
        if newer(out_dir / prog.name, [src / s for s in prog.sources] + [self.work / "libmtest.a"]):
            return None  # built by an earlier invocation
        args = self.cflags + prog.cppflags + [f"-I{src}"] + self.includes
        args += [str(src / s) for s in prog.sources]
        if "dtypes" in prog.libs:
            args.append(self.dtypes_obj)
        args += ["-o", str(out_dir / prog.name), str(self.work / "libmtest.a")]
        args += [l for l in prog.libs if l.startswith("-l")] + ["-lm"]
        rc, out = self.compile(args, out_dir)
        return None if rc == 0 else first_error(out)


def newer(target, inputs):
    """True when `target` exists and is newer than every one of `inputs`."""
    if not target.exists():
        return False
    t = target.stat().st_mtime
    return all(Path(i).stat().st_mtime < t for i in inputs)


def first_error(output):
    lines = output.splitlines()
    for l in lines:
        if re.search(r"error:|undefined reference", l, re.I):
            return l.strip()[:300]
    return (lines[0].strip()[:300] if lines else "compiler failed without output")


# ---------------------------------------------------------------- running and classifying

UNSUPPORTED_RE = re.compile(r"called (\S+), which mgen does not support")
# A program referring to a symbol libmgen lacks does not load: mgen names the symbol.
UNDEFINED_RE = re.compile(r"it needs (P?MPIX?_\w+), which neither libmgen|undefined symbol: (P?MPIX?_\w+)")
SIGNAL_RE = re.compile(r"KILLED BY SIGNAL: (\d+)|signal (\d+)|(Segmentation fault|Aborted)")


def passes_mpich_rule(run, lines, rc):
    """MPICH runtests' verdict on a finished run (True/False) and, when False, why."""
    rt = run.result_test
    no_errors = any(re.match(r"^\s*No [Ee]rrors\s*$", l) for l in lines)
    if rt in ("TestStatus", "TestErrFatal"):
        return (rc != 0, "exit status 0, the test requires a non-zero status")
    unexpected = [l for l in lines if not re.match(r"^\s*(No [Ee]rrors|Test Passed)\s*$", l)]
    if rt == "TestStatusNoErrors":
        if not no_errors:
            return False, "no ' No Errors' line"
        return (rc != 0, "exit status 0, the test requires a non-zero status")
    if unexpected:
        # mgen's own verdict names the rank and call; else the test's first two complaints.
        job = [l for l in unexpected if "simulated job failed" in l]
        return False, (job[0] if job else " / ".join(dict.fromkeys(l.strip() for l in unexpected[:4]))).strip()
    if not no_errors:
        return False, f"exit status {rc}, no ' No Errors' line"
    if rc != 0:
        return False, f"printed No Errors but exit status {rc}"
    return True, ""


def classify(run, output, rc, timed_out):
    # Blank lines are ignored (runtests counts them as unexpected output; mgen and hydra add none).
    lines = [l for l in output.splitlines() if l.strip()]
    m = UNSUPPORTED_RE.search(output)
    if m:
        return "unsupported", m.group(1)
    m = UNDEFINED_RE.search(output)
    if m:
        return "unsupported", f"{(m.group(1) or m.group(2)).removeprefix('P')} (missing at load)"
    if timed_out:
        return "timeout", f"no exit after {run_timeout.limit(run) + 10} s"
    ok, why = passes_mpich_rule(run, lines, rc)
    if ok:
        return "pass", ""
    if "APPLICATION TIMED OUT" in output:  # hydra's MPIEXEC_TIMEOUT fired first
        return "timeout", first_line_matching(output, re.compile("APPLICATION TIMED OUT"))
    if rc < 0:
        return "crash", f"signal {-rc} ({signal.Signals(-rc).name})"
    sm = SIGNAL_RE.search(output)
    if sm and run.result_test not in ("TestStatus", "TestErrFatal", "TestStatusNoErrors"):
        return "crash", first_line_matching(output, SIGNAL_RE)
    return "wrong", why[:300]


def first_line_matching(output, rx):
    for l in output.splitlines():
        if rx.search(l):
            return l.strip()[:300]
    return ""


class RunTimeout:
    default = 120

    def limit(self, run):
        return run.time_limit if run.time_limit > 0 else self.default


run_timeout = RunTimeout()


def run_one(run, work, mode, mgen, mgen_flags=()):
    cwd = work / run.dir
    exe = f"./{run.test}"
    if mode == "native":
        cmd = ["mpiexec", "-n", str(run.nprocs), exe] + run.args
    else:
        # By default not --ignore-compute: several tests wait by spinning on MPI_Wtime, which
        # only advances when the CPU time between calls is charged (mgen's default, what a user runs).
        cmd = [str(mgen), "run", "-n", str(run.nprocs), "-q"] + list(mgen_flags) + [exe] + run.args
    limit = run_timeout.limit(run)
    env = dict(os.environ, MPIEXEC_TIMEOUT=str(limit))  # as runtests sets it; a test's env= may override
    for e in run.env:
        k, _, v = e.partition("=")
        env[k] = v
    t0 = time.monotonic()
    p = subprocess.Popen(["nice", "-n", "10"] + cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    timed_out = False
    try:
        out, _ = p.communicate(timeout=limit + 10)  # after hydra's MPIEXEC_TIMEOUT
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
    secs = time.monotonic() - t0
    text = out.decode(errors="replace")
    tag = re.sub(r"[^A-Za-z0-9=.-]+", "_", run.args_text())
    (cwd / f"{run.test}.{run.nprocs}{'.' + tag if tag else ''}.out").write_text(text)
    outcome, detail = classify(run, text, p.returncode, timed_out)
    return outcome, detail, secs


# ---------------------------------------------------------------- tables


def write_tsv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, TSV_FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in TSV_FIELDS})


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def clean(text):
    return text.replace("\t", " ").replace("\n", " ").replace("|", "\\|")


def summary_markdown(rows, title):
    dirs = list(dict.fromkeys(r["dir"].split("/")[0] for r in rows))
    counts = {d: collections.Counter() for d in dirs}
    for r in rows:
        counts[r["dir"].split("/")[0]][r["outcome"]] += 1
    total = collections.Counter()
    out = [f"### {title}", "", "| dir | runs | " + " | ".join(OUTCOMES) + " |",
           "|---|" + "---:|" * (len(OUTCOMES) + 1)]
    for d in dirs:
        c = counts[d]
        total.update(c)
        out.append(f"| {d} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    out.append(f"| **total** | **{sum(total.values())}** | " + " | ".join(f"**{total[o]}**" for o in OUTCOMES) + " |")
    funcs = collections.Counter(r["detail"].split(" ")[0] for r in rows if r["outcome"] == "unsupported")
    if funcs:
        out += ["", "Unsupported functions that stopped runs (runs stopped by each, most frequent first):", ""]
        out.append(", ".join(f"`{f}` {n}" for f, n in funcs.most_common(40)))
    return "\n".join(out) + "\n"


def compare(native_rows, mgen_rows):
    """Markdown comparison and the list of mgen's failing runs (with the native outcome)."""
    native = {(r["dir"], r["test"], r["nprocs"], r["args"]): r for r in native_rows}
    dirs = list(dict.fromkeys(r["dir"].split("/")[0] for r in native_rows + mgen_rows))
    per = {d: collections.Counter() for d in dirs}
    lost, failures = [], []
    for m in mgen_rows:
        key = (m["dir"], m["test"], m["nprocs"], m["args"])
        n = native.get(key)
        c = per[m["dir"].split("/")[0]]
        c["runs"] += 1
        c["mgen pass"] += m["outcome"] == "pass"
        if n is not None:
            c["native runs"] += 1
            c["native pass"] += n["outcome"] == "pass"
            if n["outcome"] == "pass":
                c["both"] += m["outcome"] == "pass"
                if m["outcome"] != "pass":
                    lost.append(m)
        if m["outcome"] != "pass":
            failures.append(dict(m, native=n["outcome"] if n else "not run"))
    out = ["| dir | mgen runs | mgen pass | native runs | native pass | natively passing that pass under mgen |",
           "|---|---:|---:|---:|---:|---:|"]
    tot = collections.Counter()
    for d in dirs:
        c = per[d]
        tot.update(c)
        pct = f"{100 * c['both'] / c['native pass']:.0f}%" if c["native pass"] else "-"
        out.append(f"| {d} | {c['runs']} | {c['mgen pass']} | {c['native runs']} | {c['native pass']} | "
                   f"{c['both']} ({pct}) |")
    pct = f"{100 * tot['both'] / tot['native pass']:.0f}%" if tot["native pass"] else "-"
    out.append(f"| **total** | **{tot['runs']}** | **{tot['mgen pass']}** | **{tot['native runs']}** | "
               f"**{tot['native pass']}** | **{tot['both']} ({pct})** |")
    out += ["", f"Natively passing runs that do not pass under mgen ({len(lost)}):", "",
            "| dir | test | n | args | mgen outcome | detail |", "|---|---|---:|---|---|---|"]
    for m in lost:
        out.append(f"| {m['dir']} | {m['test']} | {m['nprocs']} | {clean(m['args'])} | {m['outcome']} | "
                   f"{clean(m['detail'])[:160]} |")
    return "\n".join(out) + "\n", failures


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description="Run MPICH's test/mpi suite against mgen or natively.")
    ap.add_argument("source", nargs="?", help="MPICH source tree (or its test/mpi directory)")
    ap.add_argument("dirs", nargs="*", help=f"test/mpi directories (default: {' '.join(DEFAULT_DIRS)})")
    ap.add_argument("--build-dir", default=str(REPO / "build"), help="mgen build directory (default build/)")
    ap.add_argument("--work", help="where tests are built and run (default /tmp/mgen-mpich-suite/<mode>)")
    ap.add_argument("--native", action="store_true", help="build with MPICH's mpicc, run with mpiexec")
    ap.add_argument("--jobs", type=int, default=2, help="parallel builds and runs (default 2)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run without timeLimit (default 120)")
    ap.add_argument("--only", help="only tests whose dir/name matches this regex")
    ap.add_argument("--tsv", help="TSV of every run (default WORK/results.tsv)")
    ap.add_argument("--md", help="Markdown summary (default WORK/summary.md)")
    ap.add_argument("--ignore-compute", action="store_true", help="mgen: run with --ignore-compute")
    ap.add_argument("--build-only", action="store_true", help="build the programs, run nothing")
    ap.add_argument("--compare", nargs=2, metavar=("NATIVE_TSV", "MGEN_TSV"), help="compare two result TSVs")
    ap.add_argument("--summary", metavar="TSV", help="write the Markdown summary of a result TSV (to --md or stdout)")
    ap.add_argument("--failures", help="with --compare: write mgen's failing runs (TSV, with native outcome)")
    o = ap.parse_args()

    if o.summary:
        rows = read_tsv(o.summary)
        md = summary_markdown(rows, f"{Path(o.summary).stem}: {len(rows)} runs")
        Path(o.md).write_text(md) if o.md else sys.stdout.write(md)
        return 0
    if o.compare:
        md, failures = compare(read_tsv(o.compare[0]), read_tsv(o.compare[1]))
        if o.md:
            Path(o.md).write_text(md)
        else:
            sys.stdout.write(md)
        if o.failures:
            with open(o.failures, "w", newline="") as f:
                w = csv.DictWriter(f, TSV_FIELDS[:-1] + ["native"], delimiter="\t", lineterminator="\n",
                                   extrasaction="ignore")
                w.writeheader()
                w.writerows(failures)
        return 0
    if not o.source:
        ap.error("MPICH_SOURCE_DIR is required")

    src = Path(o.source).resolve()
    testdir = src / "test" / "mpi" if (src / "test" / "mpi").is_dir() else src
    if not (testdir / "util" / "mtest.c").exists():
        ap.error(f"{o.source}: no test/mpi/util/mtest.c here; pass an MPICH source tree")
    mode = "native" if o.native else "mgen"
    work = Path(o.work or f"/tmp/mgen-mpich-suite/{mode}").resolve()
    work.mkdir(parents=True, exist_ok=True)
    tsv = Path(o.tsv or work / "results.tsv")
    md = Path(o.md or work / "summary.md")
    run_timeout.default = o.timeout
    build = Path(o.build_dir).resolve()
    mgen = build / "mgen"
    cc = "mpicc" if o.native else str(build / "mgen-cc")
    if not o.native and not (Path(cc).exists() and (o.build_only or mgen.exists())):
        ap.error(f"{build}: no mgen or mgen-cc; build mgen first (scripts/build.sh)")

    skipped = []
    runs = []
    for d in o.dirs or DEFAULT_DIRS:
        runs += read_testlist(testdir, d, skipped)
    if o.only:
        rx = re.compile(o.only)
        runs = [r for r in runs if rx.search(f"{r.dir}/{r.test}")]
    print(f"{len(runs)} runs in {len(set(r.dir for r in runs))} directories ({len(skipped)} testlist lines "
          f"skipped: large-memory or configure-dependent); work directory {work}", flush=True)

    builder = Builder(testdir, work, cc)
    if not builder.build_helpers(o.jobs):
        print(f"helpers did not build: {builder.helpers_error}", flush=True)

    rows = []
    partial = open(os.devnull if o.build_only else str(tsv) + ".partial", "w")
    partial.write("\t".join(TSV_FIELDS) + "\n")
    by_dir = collections.OrderedDict()
    for r in runs:
        by_dir.setdefault(r.dir, []).append(r)
    for d, druns in by_dir.items():
        vars = read_makefile_am(testdir / d / "Makefile.am") if (testdir / d / "Makefile.am").exists() else {}
        names = list(dict.fromkeys(r.test for r in druns))
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(o.jobs) as ex:
            errors = dict(zip(names, ex.map(lambda n: builder.build(d, program_from_makefile(vars, n)), names)))
        print(f"{d}: built {sum(e is None for e in errors.values())} of {len(names)} programs "
              f"in {time.monotonic() - t0:.0f} s", flush=True)
        if o.build_only:
            continue

        def do(run):
            if errors[run.test] is not None:
                return "not-built", errors[run.test], 0.0
            return run_one(run, work, mode, mgen, ["--ignore-compute"] if o.ignore_compute else [])

        with concurrent.futures.ThreadPoolExecutor(o.jobs) as ex:
            for run, (outcome, detail, secs) in zip(druns, ex.map(do, druns)):
                row = dict(dir=run.dir, test=run.test, nprocs=str(run.nprocs), args=run.args_text(),
                           outcome=outcome, detail=clean(detail), seconds=f"{secs:.1f}")
                if run.xfail:
                    row["detail"] = (row["detail"] + f" [xfail: {clean(run.xfail)}]").strip()
                rows.append(row)
                partial.write("\t".join(row[k] for k in TSV_FIELDS) + "\n")
                partial.flush()
                print(f"  {run.dir}/{run.test} -n {run.nprocs} {run.args_text()}: {outcome} {detail[:100]}",
                      flush=True)
    partial.close()
    if o.build_only:
        return 0
    write_tsv(tsv, rows)
    title = f"{'MPICH 4.0.2 native (mpiexec)' if o.native else 'mgen'}: {len(rows)} runs"
    md.write_text(summary_markdown(rows, title))
    os.unlink(str(tsv) + ".partial")
    print(md.read_text())
    print(f"wrote {tsv} and {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
