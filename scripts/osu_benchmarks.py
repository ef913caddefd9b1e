#!/usr/bin/env python3
"""Builds the unmodified OSU micro-benchmarks with mgen-cc and runs them with their options.

Usage:
  scripts/osu_benchmarks.py OSU_SOURCE_DIR [--build-dir build] [--work DIR] [--md OUT.md]
                            [--native] [--ranks 2,8,64] [--only REGEX] [--timeout S]

OSU_SOURCE_DIR is an OSU micro-benchmarks release (5.x layout: configure, mpi/, util/), fetched
by whoever runs this; nothing of it is committed. The source is copied into the work directory
(default /tmp/mgen-osu), configured with CC=mgen-cc (configure runs its probe programs directly:
mgen-cc's programs run as one-rank jobs when started by themselves), and its mpi/ directory
is built. Every benchmark then runs under `mgen run -n N --ignore-compute` with options other
than its defaults, and the run passes only if the options took effect on every rank:

- exit status 0 and the benchmark's header line;
- the message sizes printed are exactly the powers of two from the -m range;
- with -f, the iterations column shows the -i count (collectives);
- the ranks agree: OSU parses its options on every rank, so a rank that saw other options
  (a shared getopt state) would pass other counts and the run would stop on a mismatch.

With --native, the same commands also run under MPICH's mpiexec (the source built a second
time with mpicc), and the table gives both outcomes and both first-size figures.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# (benchmark, rank counts (None: --ranks), extra options); -m/-i/-x and -f are added below.
PT2PT_2 = ["osu_latency", "osu_bw", "osu_bibw"]
ONE_SIDED = ["osu_put_latency", "osu_get_latency", "osu_put_bw", "osu_get_bw", "osu_put_bibw",
             "osu_acc_latency", "osu_get_acc_latency", "osu_fop_latency", "osu_cas_latency"]
COLLECTIVES = ["osu_allgather", "osu_allgatherv", "osu_allreduce", "osu_alltoall", "osu_alltoallv",
               "osu_bcast", "osu_gather", "osu_gatherv", "osu_reduce", "osu_reduce_scatter",
               "osu_scatter", "osu_scatterv"]
NBC = ["osu_iallgather", "osu_iallgatherv", "osu_iallreduce", "osu_ialltoall", "osu_ialltoallv",
       "osu_ialltoallw", "osu_ibcast", "osu_igather", "osu_igatherv", "osu_ireduce", "osu_iscatter",
       "osu_iscatterv"]
STARTUP = ["osu_hello", "osu_init"]
# Fixed-size sizes and counts: small enough for 64 ranks in seconds, all unlike the defaults
# (1 .. 1 MiB or 4 MiB, 1,000 or 10,000 iterations).
SIZES = (4, 4096)
ITERS, WARMUP = 20, 3


def cases(ranks):
    """Yields (benchmark, dir, ranks, options, checks)."""
    m = f"{SIZES[0]}:{SIZES[1]}"
    for b in PT2PT_2:
        yield b, "pt2pt", 2, ["-m", m, "-i", str(ITERS), "-x", str(WARMUP)], {"sizes": SIZES}
    for n in ranks:
        if n % 2 == 0:
            yield "osu_mbw_mr", "pt2pt", n, ["-m", m, "-i", str(ITERS), "-x", str(WARMUP), "-W", "8"], {"sizes": SIZES}
            yield "osu_multi_lat", "pt2pt", n, ["-m", m, "-i", str(ITERS), "-x", str(WARMUP)], {"sizes": SIZES}
    for b in ONE_SIDED:
        fixed = b in ("osu_fop_latency", "osu_cas_latency")  # one 8-byte element, no -m
        opts = ([] if fixed else ["-m", m]) + ["-i", str(ITERS), "-x", str(WARMUP)]
        yield b, "one-sided", 2, opts, {"sizes": None if fixed else SIZES}
    for n in ranks:
        for b in COLLECTIVES:
            yield b, "collective", n, ["-m", m, "-i", str(ITERS), "-x", str(WARMUP), "-f"], {"sizes": SIZES, "iters": ITERS}
        yield "osu_barrier", "collective", n, ["-i", str(ITERS), "-x", str(WARMUP), "-f"], {"sizes": None, "iters": ITERS}
        # The non-blocking ones print no iterations column (-f changes nothing there); -t sets
        # how many MPI_Test calls their dummy computation makes.
        for b in NBC:
            yield b, "collective", n, ["-m", m, "-i", str(ITERS), "-x", str(WARMUP), "-t", "4"], {"sizes": SIZES}
        yield "osu_ibarrier", "collective", n, ["-i", str(ITERS), "-x", str(WARMUP), "-t", "4"], {"sizes": None}
        for b in STARTUP:
            yield b, "startup", n, [], {"sizes": None}


def sh(cmd, cwd=None, env=None, log=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log:
        Path(log).write_text(r.stdout)
    return r


def build(src, dest, cc, cxx, label):
    """Copies, configures and builds OSU's mpi/ directory; returns the build directory."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    # A copy gets fresh, unordered timestamps: make the generated files newer than their inputs
    # so that make does not try to rerun automake (an exact version it may not find).
    now = time.time()
    for pattern, age in (("aclocal.m4", 3), ("configure", 2), ("Makefile.in", 1), ("config.h.in", 1)):
        for p in dest.rglob(pattern):
            os.utime(p, (now - age, now - age))
    r = sh(["./configure", f"CC={cc}", f"CXX={cxx}"], cwd=dest, log=dest / "configure.out")
    if r.returncode != 0:
        sys.exit(f"{label}: configure failed (see {dest}/configure.out, config.log)")
    r = sh(["make", "-j2", "-C", "mpi"], cwd=dest, log=dest / "make.out")
    if r.returncode != 0:
        sys.exit(f"{label}: make -C mpi failed (see {dest}/make.out)")
    return dest


def find(build_dir, sub, bench):
    p = build_dir / "mpi" / sub / bench
    return p if p.exists() else None


def check(out, rc, checks, bench):
    """Returns (ok, detail, first-size figure)."""
    if rc != 0:
        last = [l for l in out.splitlines() if l.strip()][-1:] or ["(no output)"]
        return False, f"exit {rc}: {last[0][:160]}", ""
    if not re.search(r"^# OSU", out, re.M) and bench not in STARTUP:
        return False, "no OSU header", ""
    rows = [l.split() for l in out.splitlines() if l.strip() and not l.startswith("#")]
    rows = [r for r in rows if r and re.fullmatch(r"[0-9.]+", r[0])]
    first = ""
    if checks.get("sizes"):
        lo, hi = checks["sizes"]
        want = []
        s = lo
        while s <= hi:
            want.append(s)
            s *= 2
        got = [int(float(r[0])) for r in rows]
        if got != want:
            return False, f"sizes {got[:3]}..{got[-1:]} printed, {lo}..{hi} asked", ""
        first = rows[0][1]
    elif rows:
        first = rows[0][0]
    if "iters" in checks:
        if not rows or any(r[-1] != str(checks["iters"]) for r in rows):
            return False, f"iterations column is not {checks['iters']}", first
    if bench == "osu_hello" and "Hello World" not in out:
        return False, "no greeting", ""
    return True, "", first


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("osu_src", type=Path)
    ap.add_argument("--build-dir", type=Path, default=REPO / "build")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mgen-osu"))
    ap.add_argument("--md", type=Path)
    ap.add_argument("--native", action="store_true", help="also build with mpicc and run under mpiexec")
    ap.add_argument("--ranks", default="2,8,64")
    ap.add_argument("--native-max", type=int, default=8,
                    help="native runs only up to this many processes (MPICH busy-polls: 64 processes on a "
                    "2-core machine take minutes per benchmark)")
    ap.add_argument("--only", default="", help="regex on the benchmark name")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-build", action="store_true", help="reuse the work directory's builds")
    a = ap.parse_args()
    bd = a.build_dir.resolve()
    mgen = bd / "mgen"
    src = a.osu_src.resolve()
    if not (src / "configure").exists() or not (src / "mpi").is_dir():
        sys.exit(f"{src}: not an OSU micro-benchmarks source tree (configure, mpi/)")
    a.work.mkdir(parents=True, exist_ok=True)
    mg_dir, nat_dir = a.work / "mgen", a.work / "native"
    if not a.no_build:
        build(src, mg_dir, bd / "mgen-cc", bd / "mgen-cxx", "mgen-cc")
        if a.native:
            build(src, nat_dir, "mpicc", "mpicxx", "mpicc")
    ranks = [int(x) for x in a.ranks.split(",")]
    rows = []
    for bench, sub, n, opts, checks in cases(ranks):
        if a.only and not re.search(a.only, bench):
            continue
        exe = find(mg_dir, sub, bench)
        row = {"bench": bench, "n": n, "opts": " ".join(opts)}
        if exe is None:
            row.update(mgen="not built", detail="", first="", cpu="")
            rows.append(row)
            continue
        cmd = [str(mgen), "run", "-n", str(n), "-q", "--ignore-compute", str(exe)] + opts
        t0 = os.times()
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=a.timeout)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), 124
        t1 = os.times()
        ok, detail, first = check(out, rc, checks, bench)
        row.update(mgen="pass" if ok else "FAIL", detail=detail, first=first,
                   cpu=f"{(t1.children_user - t0.children_user) + (t1.children_system - t0.children_system):.2f}")
        if a.native and n <= a.native_max:
            nexe = find(nat_dir, sub, bench)
            try:
                r = subprocess.run(["mpiexec", "-n", str(n), str(nexe)] + opts, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=a.timeout)
                nok, ndetail, nfirst = check(r.stdout, r.returncode, checks, bench)
            except subprocess.TimeoutExpired:
                nok, ndetail, nfirst = False, "timeout", ""
            row.update(native="pass" if nok else "FAIL", ndetail=ndetail, nfirst=nfirst)
        rows.append(row)
        print(f"{row['mgen']:5} {bench} -n {n} {row['opts']}  {detail}", flush=True)
    passed = sum(r["mgen"] == "pass" for r in rows)
    print(f"{passed} of {len(rows)} runs pass under mgen")
    if a.md:
        lines = [f"{passed} of {len(rows)} runs pass under mgen (`--ignore-compute`, default machine).", "",
                 "| benchmark | ranks | options | mgen | first size: mgen | " +
                 ("native | first size: native | " if a.native else "") + "mgen CPU s | detail |",
                 "|---|---:|---|---|---:|" + ("---|---:|" if a.native else "") + "---:|---|"]
        for r in rows:
            nat = f"{r.get('native', '')} | {r.get('nfirst', '')} | " if a.native else ""
            det = "; ".join(x for x in (r["detail"], r.get("ndetail", "")) if x)
            lines.append(f"| {r['bench']} | {r['n']} | `{r['opts']}` | {r['mgen']} | {r['first']} | {nat}{r['cpu']} | {det} |")
        a.md.write_text("\n".join(lines) + "\n")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
