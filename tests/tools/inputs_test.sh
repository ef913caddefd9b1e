#!/usr/bin/env bash
# Bad numbers, impossible sizes and limits are refused up front with a clear message (exit 2),
# never replaced by a default, never a raw exception or a kernel kill: every numeric option of
# every subcommand; keys of another kind of topology; more ranks than the machine has places;
# the kernel's map-count limit; programs not built with mgen-cc; machines and jobs that cannot
# fit in memory (under `ulimit -v`), and std::bad_alloc when --force goes ahead anyway.
# Usage: inputs_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen
compute=$build/tests/tools/compute  # an MGEN program (loaded once)
u32=4294967295

# ---------------------------------------------------------------- numeric options
for v in -1 0 nan inf 1e7 x; do
  expect 2 "^mgen: error: --cpu-scale: must be a positive number, at most 1e\+06 \(got $v\)" -- \
    "$mgen" replay "$work/none" --cpu-scale "$v"
done
expect 2 "^mgen: error: --ppn: must be a whole number from 1 to $u32 \(got 0\)" -- "$mgen" replay "$work/none" --ppn 0
expect 2 "^mgen: error: --ppn: must be a whole number from 1 to $u32 \(got 0\)" -- "$mgen" run -n 2 --ppn 0 "$compute"
expect 2 "^mgen: error: --ranks: must be a whole number from 1 to $u32 \(got 0\)" -- "$mgen" run -n 0 "$compute"
expect 2 "^mgen: error: --ranks: must be a whole number from 1 to $u32 \(got -3\)" -- "$mgen" run -n -3 "$compute"
expect 2 "--ranks: must be a whole number from 1 to $u32 \(got 99999999999\)" -- "$mgen" run -n 99999999999 "$compute"
expect 2 "--ranks: must be a whole number from 1 to $u32 \(got 4x\)" -- "$mgen" run -n 4x "$compute"
expect 2 "--stack: must be a size from 16 KiB to 1 GiB, such as 256KiB \(got 1KiB\)" -- \
  "$mgen" run -n 2 --stack 1KiB "$compute"
expect 2 "--stack: must be a size from 16 KiB to 1 GiB, such as 256KiB \(got 2GiB\)" -- \
  "$mgen" run -n 2 --stack 2GiB "$compute"
expect 2 "--stack: .*\(got 12parsecs\)" -- "$mgen" run -n 2 --stack 12parsecs "$compute"
expect 2 "--ranks: must be a whole number from 1 to 2147483647 \(got 0\)" -- "$mgen" nas cg --class S -n 0
expect 2 "--sweep-ranks: '0' is not a rank count from 1 to 2147483647 \(got 4,0,16\)" -- \
  "$mgen" nas cg --class S --sweep-ranks 4,0,16
expect 2 "--sample: must be a whole number from 1 to 2147483647 \(got -2\)" -- "$mgen" nas lu --class S -n 4 --sample -2
for v in 0 -1 1.5 nan inf; do
  expect 2 "^mgen: error: --load: must be an offered load in \(0, 1\] \(got $v\)" -- "$mgen" traffic uniform --load "$v"
done
expect 2 "--sweep: START 0.5 is above STOP 0.1 \(got 0.5:0.1:0.1\)" -- "$mgen" traffic uniform --sweep 0.5:0.1:0.1
expect 2 "--sweep: STEP 1e-09 makes more than 1000 points" -- "$mgen" traffic uniform --sweep 0.1:0.9:1e-9
expect 2 "--sweep: STOP '2' is not a load in \(0, 1\] \(got 0.1:2:0.1\)" -- "$mgen" traffic uniform --sweep 0.1:2:0.1
expect 2 "--sweep: load 'nan' is not a load in \(0, 1\] \(got 0.1,nan\)" -- "$mgen" traffic uniform --sweep 0.1,nan
expect 2 "--sweep: takes START:STOP:STEP or a comma list \(got 0.1:0.2:0.1:5\)" -- \
  "$mgen" traffic uniform --sweep 0.1:0.2:0.1:5
expect 2 "--size: must be a size from 1 B to 1 GiB, such as 256KiB \(got 0B\)" -- "$mgen" traffic uniform --size 0B
expect 2 "--size: bad size \"2\": missing unit .*\(got 2\)" -- "$mgen" traffic uniform --size 2
expect 2 "--measure: must be a time above zero, such as 50us \(got 0us\)" -- "$mgen" traffic uniform --measure 0us
expect 2 "^mgen: error: --warmup: bad time \"-5us\": cannot be negative .*\(got -5us\)" -- \
  "$mgen" traffic uniform --warmup -5us
expect 2 "--hotspot-fraction: must be a share from 0 to 1 \(got 2\)" -- "$mgen" traffic hotspot --hotspot-fraction 2
expect 2 "--seed: must be a whole number of at least 0 \(got -1\)" -- "$mgen" traffic uniform --seed -1
expect 2 "--rank: must be a whole number from 0 to 2147483647 \(got -2\)" -- "$mgen" trace dump "$work" --rank -2
expect 2 "--ranks: must be a whole number from 1 to $u32 \(got 0\)" -- "$mgen" record -n 0 -- true
for v in nan inf -1; do
  expect 2 "^mgen: error: --reductions: '$v' is not a percentage from 0 to 100 \(got 10,$v\)" -- \
    "$mgen" whatif -c "$src/configs/thunderx2-cx4.toml" --reductions "10,$v"
done
echo "0 99999999999" >"$work/bigmap.txt"
expect 2 "bigmap.txt:1: '99999999999' is not a node number" -- \
  "$mgen" run -n 2 --placement "$work/bigmap.txt" "$compute"
echo "0 600" >"$work/farmap.txt"
expect 2 "--placement: rank 1 is mapped to node 600; the machine has nodes 0 to 511" -- \
  "$mgen" run -n 2 --placement "$work/farmap.txt" "$compute"

# ---------------------------------------------------------------- keys of another topology
expect 2 '^mgen: error: --set topology.down=\[4,4\]: topology.down: is a key of a fat tree, but topology.kind is "torus"' \
  -- "$mgen" info --set 'topology.down=[4,4]'
printf '[topology]\nkind = "fattree"\nk = 4\nlevels = 2\ndims = [4, 4]\n' >"$work/tree_dims.toml"
expect 2 'tree_dims.toml:5:1: topology.dims: is a key of a torus or mesh, but topology.kind is "fattree"' -- \
  "$mgen" info -c "$work/tree_dims.toml"
printf '[topology]\nkind = "crossbar"\nnodes = 8\nlevels = 2\n' >"$work/xbar_levels.toml"
expect 2 'xbar_levels.toml:4:1: topology.levels: is a key of a fat tree, but topology.kind is "crossbar"' -- \
  "$mgen" info -c "$work/xbar_levels.toml"
expect 2 'topology.nodes: is a key of a crossbar, but topology.kind is "mesh"' -- \
  "$mgen" info --set topology.kind=mesh --set topology.nodes=4

# ---------------------------------------------------------------- ranks beyond the machine
"$build/mgen-cc" -O1 -o "$work/mpi_prog" "$src/tests/tools/programs/osu_options.c" || exit 1
expect 2 "^mgen: error: -n: 2000000 ranks at 1 per node need 2000000 nodes; the machine \(default\) has 512: at most \
512 ranks at 1 per node" -- timeout 20 "$mgen" run -n 2000000 "$work/mpi_prog"
expect 2 "-n: 5000 ranks at 4 per node need 1250 nodes; the machine \(default\) has 512: at most 2048 ranks" -- \
  timeout 20 "$mgen" run -n 5000 --ppn 4 "$compute"

# ---------------------------------------------------------------- the kernel's map-count limit
# A copy of a recompiled program per rank maps 5 segments: just above the limit is refused
# before a copy is made (skipped where the limit is so high that the ranks would not fit).
limit=$(cat /proc/sys/vm/max_map_count)
n=$((limit / 5 + 2000))
if [ "$n" -le 200000 ]; then
  expect 2 "-n $n: $n ranks need about [0-9]+ memory mappings .*the kernel allows $limit \(vm.max_map_count\): raise \
it with .sudo sysctl -w vm.max_map_count=[0-9]+000." -- timeout 20 "$mgen" run -n "$n" --ppn 1000 "$work/mpi_prog"
else
  echo "skipped: vm.max_map_count is $limit"
fi

# ---------------------------------------------------------------- programs not built with mgen-cc
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$work/plain.c"
if command -v cc >/dev/null; then
  cc -o "$work/plain" "$work/plain.c"
  expect 2 "^mgen: error: .*/plain was not built with mgen-cc \(cannot dynamically load .*executable\): rebuild it \
with .mgen-cc SOURCES -o plain." -- "$mgen" run -n 2 "$work/plain"
fi
if command -v mpicc >/dev/null; then
  mpicc -o "$work/mpich_prog" "$src/tests/tools/programs/osu_options.c"
  expect 2 "mpich_prog was not built with mgen-cc \(it is linked with MPICH's libmpi(ch)?.so: built with mpicc\): \
rebuild it with .mgen-cc SOURCES -o mpich_prog." -- "$mgen" run -n 2 "$work/mpich_prog"
  # Also as a shared object (which dlopen would load, MPICH and all).
  mpicc -shared -fPIC -o "$work/mpich_module.so" "$src/tests/tools/programs/osu_options.c"
  expect 2 "mpich_module.so was not built with mgen-cc \(it is linked with MPICH's" -- \
    "$mgen" run -n 2 "$work/mpich_module.so"
fi
cp "$work/plain.c" "$work/source.so"
expect 2 "source.so is not a program mgen can run \(not an ELF file\): build MPI programs with .mgen-cc" -- \
  "$mgen" run -n 2 "$work/source.so"

# ---------------------------------------------------------------- memory
if [[ "$(cat "$(dirname "$mgen")/CMakeCache.txt" 2>/dev/null | grep -c '^MGEN_SANITIZE:STRING=.\+')" != 0 ]]; then
  echo "skipped: ulimit -v cases (a sanitizer build reserves terabytes of shadow memory at start)"
else
# Under `ulimit -v` (2 GB of address space) the estimates see the limit: a 2048x2048 torus
# (4.2 M routers) is refused before it is built, as is a job whose stacks cannot be reserved;
# with --force the build runs out of memory and says what it was building.
expect 2 "^mgen: error: the network of machine 'default' \(4194304 routers, 20971520 ports, 4194304 endpoints\) \
needs about [0-9.]+ GiB of memory; this computer has [0-9.]+ [MG]iB available \((ulimit -v less what is mapped|\
MemAvailable in /proc/meminfo|the cgroup [^)]*)\): model a smaller machine, or add --force" -- bash -c "ulimit -v 2000000; exec \"$mgen\" info --set 'topology.dims=[2048,2048]'"
expect 2 "^mgen: error: 10000 ranks on machine 'default' .*needs about [0-9.]+ GiB of memory \(of which [0-9.]+ GiB of \
stack reservations\).*ulimit -v" -- bash -c "ulimit -v 2000000; exec \"$mgen\" run -n 10000 --ppn 20 \"$compute\""
expect 1 "^mgen: error: out of memory while (reading the machine|building the network of machine 'default') \
\(std::bad_alloc" -- \
  bash -c "ulimit -v 1000000; exec \"$mgen\" info --force --set 'topology.dims=[2048,2048]'"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
