#!/usr/bin/env bash
# validate-host.sh: real MPI programs run on this host under MPICH and predicted by mgen (issue 22,
# item 3). For each program and rank count it records --runs real runs with `mgen record` (the
# PMPI recorder), takes the measured time of each from its traces (`mgen trace stats`: span_s,
# from MPI_Init's return to MPI_Finalize's entry, slowest rank), replays each run's traces on the
# machine file with all ranks on one node (`mgen replay -c MACHINE --ppn N`), and for the NPB
# kernels also runs mgen's skeleton of the kernel (`mgen nas KERNEL --class C -n N`). It writes
# the table (median of the runs, ratios prediction / measured) as TSV and markdown into --out and
# prints it. Run `validate-host.sh --help` for the options.
set -uo pipefail

usage() {
  cat <<'EOF'
usage: scripts/validate-host.sh [options]
  --machine FILE   machine file to predict with (what `mgen calibrate --out FILE` writes);
                   'default' for mgen's built-in default machine (required unless --quick)
  --npb DIR        a built NPB3.4-MPI (DIR/bin/cg.A.x, ...); without it the NPB rows are skipped
  --runs N         real runs per program and rank count (default 5); the table shows the median
  --ranks "2 4"    rank counts (default "2 4")
  --classes "A B"  NPB classes (default "A B")
  --programs LIST  programs, space- or comma-separated (default "examples npb"):
                   examples = halo_c halo_f cg_c cg_f transpose_c transpose_f (examples/mpi),
                   npb = cg ep ft is lu mg bt sp (NPB kernels, needs --npb)
  --out DIR        output folder (default build/validate-host)
  --build DIR      mgen's build folder (default build)
  --append         add to the table already in --out (rows of the programs run now are replaced), so
                   that the set can be run in pieces: --programs "cg ep" --ranks 2, then ...
  --keep-traces    keep every run's traces (by default only their statistics are kept)
  --quick          smoke test: examples only, 2 ranks, 1 run, smaller sizes (under a minute)

NPB 3.4 MPI is public source from NASA (nas.nasa.gov/software/npb.html), built outside this
repository with MPICH's wrappers; in NPB3.4-MPI/, config/make.def from config/make.def.template
with MPIFC = mpif90, MPICC = mpicc, FFLAGS = -O2 -fallow-argument-mismatch (gfortran >= 10 and
mpif.h), CFLAGS = -O2, then: mkdir -p bin; for k in cg ep ft is lu mg bt sp; do for c in A B; do
make $k CLASS=$c; done; done
EOF
}

root=$(cd "$(dirname "$0")/.." && pwd)
machine=
npb=
runs=5
ranks="2 4"
classes="A B"
programs="examples npb"
out=
build=$root/build
keep=0
append=0
quick=0
die() {
  echo "validate-host: error: $*" >&2
  exit 2
}
need_value() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    --machine) need_value "$@"; machine=$2; shift 2 ;;
    --npb) need_value "$@"; npb=$2; shift 2 ;;
    --runs) need_value "$@"; runs=$2; shift 2 ;;
    --ranks) need_value "$@"; ranks=$2; shift 2 ;;
    --classes) need_value "$@"; classes=$2; shift 2 ;;
    --programs) need_value "$@"; programs=${2//,/ }; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --build) need_value "$@"; build=$2; shift 2 ;;
    --keep-traces) keep=1; shift ;;
    --append) append=1; shift ;;
    --quick) quick=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
if [ $quick = 1 ]; then
  runs=1 ranks=2 programs=examples
  [ -n "$machine" ] || machine=default
fi
[ -n "$out" ] || out=$build/validate-host
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs: '$runs' is not a positive whole number"
for n in $ranks; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "--ranks: '$n' is not a positive whole number"; done
for c in $classes; do [[ $c =~ ^[SWABCDEF]$ ]] || die "--classes: '$c' is not an NPB class (S W A B C D E F)"; done

# What the script needs, each missing piece named.
missing=()
for tool in mpiexec mpicc mpif90 python3; do command -v $tool >/dev/null 2>&1 || missing+=("$tool (not on PATH)"); done
mgen=$build/mgen
[ -x "$mgen" ] || missing+=("$mgen (build mgen: cmake --build $build --target mgen_cli mgen_preload)")
[ -f "$build/libmgen-preload.so" ] || missing+=("$build/libmgen-preload.so (the recorder: cmake --build $build --target mgen_preload)")
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "validate-host: error: missing $m" >&2; done
  [[ " ${missing[*]} " == *mpiexec* || " ${missing[*]} " == *mpicc* || " ${missing[*]} " == *mpif90* ]] &&
    echo "validate-host: the programs run under MPICH (Debian: apt-get install mpich)" >&2
  exit 2
fi
if [ -z "$machine" ]; then
  die "no machine file: give --machine FILE (mgen calibrate --out FILE writes one for this host), or --machine default for mgen's built-in default machine"
fi
machine_args=()
if [ "$machine" != default ]; then
  [ -f "$machine" ] || die "machine file '$machine' not found (mgen calibrate --out FILE writes one)"
  machine=$(cd "$(dirname "$machine")" && pwd)/$(basename "$machine")
  machine_args=(-c "$machine")
  "$mgen" info "${machine_args[@]}" >/dev/null || die "mgen cannot read the machine file '$machine' (above)"
fi

# Expand the program list; NPB kernels need --npb.
examples="halo_c halo_f cg_c cg_f transpose_c transpose_f"
kernels="cg ep ft is lu mg bt sp"
list=
for p in $programs; do
  case $p in
    examples) list+=" $examples" ;;
    npb) list+=" $kernels" ;;
    halo_c | halo_f | cg_c | cg_f | transpose_c | transpose_f | cg | ep | ft | is | lu | mg | bt | sp) list+=" $p" ;;
    *) die "--programs: unknown program '$p' (examples: $examples; NPB: $kernels; or the groups examples, npb)" ;;
  esac
done
if [ -n "$npb" ]; then
  [ -d "$npb/bin" ] || die "--npb $npb: no bin/ folder (build NPB3.4-MPI first: see --help)"
  npb=$(cd "$npb" && pwd)
fi

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
work=$out/runs
mkdir -p "$work" "$out/bin"
raw=$out/runs.tsv # one line per real run
skel=$out/skeletons.tsv
loads=$out/loads.tsv # when each piece ran, and the load average at its start and end
if [ $append = 0 ] || [ ! -f "$raw" ]; then
  printf 'program\tclass\tranks\trun\tload\tmeasured_s\tnpb_time_s\treplay_s\treplay_wall_s\tmpi_share\tcpu_per_wall\n' >"$raw"
  printf 'program\tclass\tranks\tskeleton_s\tskeleton_npb_s\n' >"$skel"
  printf 'started\tprograms\tranks\tclasses\truns\tload_start\tload_end\n' >"$loads"
fi
# forget PROGRAM CLASS RANKS: drop the rows of an earlier run of this group (--append).
forget() {
  local f
  for f in "$raw" "$skel"; do
    awk -F'\t' -v p="$1" -v c="$2" -v n="$3" 'NR == 1 || !($1 == p && $2 == c && $3 == n)' "$f" >"$f.new" &&
      mv "$f.new" "$f"
  done
}

load1() { cut -d' ' -f1 /proc/loadavg; }
warn_load() {
  if python3 -c "import sys; sys.exit(0 if float('$(load1)') > 1 else 1)"; then
    echo "validate-host: warning: load average $(load1) > 1 at the $1: other work shares this host's cores," \
      "so the measured times include waiting for a CPU, which mgen does not model" >&2
  fi
}
load_start=$(uptime | sed 's/.*load average: //')
started=$(date -u +%H:%M)
warn_load start

# The example programs, built as examples/mpi/run_mpich.sh builds them but with -O2. Their
# default sizes finish in microseconds (MPICH's start-up would be all one measured), so each
# runs with arguments that make its run last about 0.3-1 s on an idle host:
#   halo N ITERS: 1000 x 1000 grid, 100 iterations: 2 x 8 KB halo messages per rank and
#     iteration against N^2/p point updates: compute-bound (and every rank also sweeps the whole
#     grid once more at the end, its sequential check);
#   cg N ITERS: order 200000, 200 iterations: 2 one-value Sendrecv and 2 one-value Allreduce
#     per iteration against 200000/p rows: compute-bound, with 800 latency-bound calls;
#   transpose B REPS: 512 rows per rank, 40 transposes of a (512 p)^2 int matrix: Alltoall of
#     1 MB (2 ranks) to 2 MB per rank and two Barriers per transpose: copy-bandwidth-bound.
# --quick uses about a twentieth of the work.
if [ $quick = 1 ]; then
  declare -A args=([halo]="200 40" [cg]="20000 50" [transpose]="128 10")
else
  declare -A args=([halo]="1000 100" [cg]="200000 200" [transpose]="512 40")
fi
ex=$root/examples/mpi
need_fortran_module=1
for p in $list; do
  case $p in
    *_c)
      b=${p%_c}
      [ -x "$out/bin/$p" ] && [ "$out/bin/$p" -nt "$ex/$b.c" ] && continue
      mpicc -std=c11 -O2 -Wall -Werror -Wno-stringop-overflow -o "$out/bin/$p" "$ex/$b.c" -lm ||
        die "mpicc could not build $ex/$b.c"
      ;;
    *_f)
      b=${p%_f}
      [ -x "$out/bin/$p" ] && [ "$out/bin/$p" -nt "$ex/$b.f90" ] && continue
      if [ $need_fortran_module = 1 ]; then
        mpif90 -O2 -Wall -Werror -J "$out/bin" -c -o "$out/bin/mpi_counts.o" "$ex/mpi_counts.f90" ||
          die "mpif90 could not build $ex/mpi_counts.f90"
        need_fortran_module=0
      fi
      mpif90 -O2 -Wall -Werror -I "$out/bin" -J "$out/bin" -o "$out/bin/$p" "$ex/$b.f90" "$out/bin/mpi_counts.o" ||
        die "mpif90 could not build $ex/$b.f90"
      ;;
  esac
done

is_square() { local r; r=$(python3 -c "import math; print(math.isqrt($1))"); [ $((r * r)) -eq "$1" ]; }
is_pow2() { [ $(($1 & ($1 - 1))) -eq 0 ]; }

# Values from the JSON reports of one run: span_s, the slowest rank's share of it inside MPI
# calls (without MPI_Init's and MPI_Finalize's own time) and its CPU time / wall time outside
# MPI calls; and a replay's predicted_time_s.
span_and_share() {
  python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
slow = max(s["ranks"], key=lambda r: r["span_s"])
f = slow["functions"]
own = sum(f[k]["in_call_s"] for k in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize") if k in f)
share = (slow["in_mpi_s"] - own) / slow["span_s"] if slow["span_s"] > 0 else 0
# CPU time over wall time between calls: below 1 when the rank waited for a CPU while computing.
got_cpu = slow["compute_cpu_s"] / slow["compute_wall_s"] if slow["compute_wall_s"] > 0 else 1
print(f'{s["span_s"]:.6f}\t{share:.3f}\t{got_cpu:.3f}')
PY
}
# predicted REPORT [KEY]: a prediction from a JSON report (predicted_time_s unless KEY).
predicted() { python3 -c "import json,sys; print('%.6f' % json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "${2:-predicted_time_s}"; }

failures=0
# one_run PROGRAM CLASS RANKS RUN EXE ARGS...: record, check, measure and replay one real run.
one_run() {
  local prog=$1 cls=$2 n=$3 run=$4 dir
  shift 4
  dir=$work/$prog${cls:+.$cls}.$n/run$run
  rm -rf "$dir" && mkdir -p "$dir"
  local load
  load=$(load1)
  # MPICH's launcher ends a run after MPIEXEC_TIMEOUT seconds, all its processes with it (a
  # timeout around mgen record would leave mpiexec and the ranks running).
  if ! (cd "$dir" && MPIEXEC_TIMEOUT=900 "$mgen" record -n "$n" --out "$dir/traces" -- "$@" >"$dir/stdout.txt" \
    2>"$dir/stderr.txt"); then
    echo "validate-host: FAIL: $prog${cls:+ class $cls} at $n ranks, run $run: mgen record failed: $(tail -3 "$dir/stderr.txt")" >&2
    failures=$((failures + 1))
    return 1
  fi
  if [ -z "$cls" ]; then
    grep -qx OK "$dir/stdout.txt" || {
      echo "validate-host: FAIL: $prog at $n ranks, run $run: no OK line (see $dir/stdout.txt)" >&2
      failures=$((failures + 1))
      return 1
    }
  else
    grep -Eq '^ *Verification *= *SUCCESSFUL' "$dir/stdout.txt" || {
      echo "validate-host: FAIL: $prog class $cls at $n ranks, run $run: NPB did not verify (see $dir/stdout.txt)" >&2
      failures=$((failures + 1))
      return 1
    }
  fi
  local npb_time=-
  [ -n "$cls" ] && npb_time=$(sed -n 's/^ *Time in seconds *= *\([0-9.]*\).*/\1/p' "$dir/stdout.txt")
  "$mgen" trace stats "$dir/traces" --report "$dir/stats.json" >/dev/null || {
    echo "validate-host: FAIL: mgen trace stats $dir/traces" >&2
    failures=$((failures + 1))
    return 1
  }
  local measured share cpu replay replay_wall
  IFS=$'\t' read -r measured share cpu < <(span_and_share "$dir/stats.json")
  if ! "$mgen" replay "$dir/traces" "${machine_args[@]}" --ppn "$n" -q --report "$dir/replay.json" 2>"$dir/replay.err" ||
    ! "$mgen" replay "$dir/traces" "${machine_args[@]}" --ppn "$n" --compute wall -q --report "$dir/replay_wall.json" \
      2>>"$dir/replay.err"; then
    echo "validate-host: FAIL: mgen replay of $dir/traces: $(tail -3 "$dir/replay.err")" >&2
    failures=$((failures + 1))
    return 1
  fi
  replay=$(predicted "$dir/replay.json")
  replay_wall=$(predicted "$dir/replay_wall.json")
  [ $keep = 1 ] || rm -rf "$dir/traces"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$prog" "${cls:--}" "$n" "$run" "$load" "$measured" \
    "$npb_time" "$replay" "$replay_wall" "$share" "$cpu" >>"$raw"
  printf '  run %s: measured %8.4f s (NPB says %s), replay %8.4f s, in MPI %s, cpu/wall %s, load %s\n' "$run" \
    "$measured" "$npb_time" "$replay" "$share" "$cpu" "$load"
}

for prog in $list; do
  for n in $ranks; do
    case $prog in
      *_c | *_f)
        b=${prog%_?}
        echo "$prog ${args[$b]} at $n ranks"
        forget "$prog" - "$n"
        for ((r = 1; r <= runs; r++)); do one_run "$prog" "" "$n" "$r" "$out/bin/$prog" ${args[$b]}; done
        ;;
      *)
        if [ -z "$npb" ]; then
          echo "NPB $prog at $n ranks: skipped (no --npb DIR)"
          continue
        fi
        if [[ $prog == bt || $prog == sp ]] && ! is_square "$n"; then
          echo "NPB $prog at $n ranks: skipped (BT and SP need a square number of ranks)"
          continue
        fi
        if [[ $prog != ep && $prog != bt && $prog != sp ]] && ! is_pow2 "$n"; then
          echo "NPB $prog at $n ranks: skipped (${prog^^} needs a power of two ranks)"
          continue
        fi
        for cls in $classes; do
          exe=$npb/bin/$prog.$cls.x
          if [ ! -x "$exe" ]; then
            echo "NPB $prog class $cls: skipped ($exe not built: make $prog CLASS=$cls in $npb)"
            continue
          fi
          echo "NPB $prog class $cls at $n ranks"
          forget "$prog" "$cls" "$n"
          for ((r = 1; r <= runs; r++)); do one_run "$prog" "$cls" "$n" "$r" "$exe"; done
          sk=$work/$prog.$cls.$n/skeleton.json
          if "$mgen" nas "$prog" --class "$cls" -n "$n" --ppn "$n" "${machine_args[@]}" -q --report "$sk" \
            2>"$sk.err"; then
            printf '%s\t%s\t%s\t%s\t%s\n' "$prog" "$cls" "$n" "$(predicted "$sk")" "$(predicted "$sk" npb_time_s)" \
              >>"$skel"
          else
            echo "validate-host: FAIL: mgen nas $prog --class $cls -n $n: $(tail -3 "$sk.err")" >&2
            failures=$((failures + 1))
          fi
        done
        ;;
    esac
  done
done
load_end=$(uptime | sed 's/.*load average: //')
warn_load end
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$started" "$(echo $list)" "$ranks" "$classes" "$runs" "$load_start" \
  "$load_end" >>"$loads"

python3 "$root/scripts/validate_host_table.py" --runs "$raw" --skeletons "$skel" --loads "$loads" --out "$out" \
  --machine "${machine}" || exit 1
if [ $failures -gt 0 ]; then
  echo "validate-host: $failures run(s) failed (above); the table holds the others" >&2
  exit 1
fi
