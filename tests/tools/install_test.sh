#!/usr/bin/env bash
# The installed mgen works on its own: `cmake --install` into a staging prefix, which is then
# moved (everything must be found relative to it), then
#   - an outside CMake project with find_package(mgen CONFIG) builds an MPI program and an MGEN
#     program with mgen_add_program(), and the installed `mgen run -n 4` runs them;
#   - the installed mgen-cc builds an MPI program (no path into the build tree), which runs under
#     the installed mgen and by itself; --check reads it;
#   - `mgen -c NAME` finds the installed machine files by name;
#   - `mgen record` finds the installed recorder (when MPICH's mpicc and mpiexec are here);
#   - `cpack -G DEB` makes a .deb holding the same files under /usr.
# The ring's output depends on the messages exchanged (rank r prints rank r-1's token).
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
projects=$src/tests/tools/projects
ring4="rank 0 of 4 got 34 \(calls 1\).*rank 1 of 4 got 4 \(calls 1\).*rank 2 of 4 got 14 \(calls 1\).*rank 3 of 4 got 24 \(calls 1\)"
sorted() { "$@" 2>&1 | sort; }

cmake --install "$build" --prefix "$work/stage" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
mv "$work/stage" "$work/prefix"
p=$work/prefix
for f in bin/mgen bin/mgen-cc bin/mgen-cxx lib/libmgen.so lib/libmgen_rank.a lib/libmgen-preload.so \
         include/mgen/mgen.h include/mgen/mpix.h share/mgen/configs/hopper.toml share/mgen/mgen-unsupported.txt \
         share/doc/mgen/README.md lib/cmake/mgen/mgenConfig.cmake lib/cmake/mgen/mgenConfigVersion.cmake; do
  [ -e "$p/$f" ] || { echo "FAIL: $f not installed"; failures=$((failures + 1)); }
done
expect 1 "." -- grep -l "$build" "$p/bin/mgen-cc" "$p/bin/mgen-cxx" "$p/lib/cmake/mgen/mgenConfig.cmake"

# An outside CMake project.
cp -r "$projects/installed_mgen" "$work/ext" && cp "$projects/ring.c" "$work/ext/"
expect 0 "Generating done" -- cmake -S "$work/ext" -B "$work/ext/b" -DCMAKE_PREFIX_PATH="$p"
expect 0 "mgen=$p/bin/mgen.*configs=$p/share/mgen/configs" -- cat "$work/ext/b/mgen-found.txt"
expect 0 "Built target ring" -- cmake --build "$work/ext/b"
expect 0 "$ring4" -- sorted "$p/bin/mgen" run -n 4 -q "$work/ext/b/ring"
expect 0 "sum of 5 ranks: 10" -- "$p/bin/mgen" run -n 5 -q "$work/ext/b/hello"
# Asking for a version above the installed one fails (mgenConfigVersion.cmake).
sed -i 's/find_package(mgen 0.1 /find_package(mgen 99.0 /' "$work/ext/CMakeLists.txt"
expect 1 "version.*99\.0" -- cmake -S "$work/ext" -B "$work/ext/b99" -DCMAKE_PREFIX_PATH="$p"

# The installed mgen-cc.
expect 0 "$p/lib/libmgen_rank\.a" -- "$p/bin/mgen-cc" -show
# Through a symbolic link on PATH (as /usr/local/bin/mgen-cc -> /opt/mgen/bin/mgen-cc), too.
mkdir -p "$work/links" && ln -s "$p/bin/mgen-cc" "$work/links/mgen-cc"
expect 0 "-I$p/include .*$p/lib/libmgen_rank\.a" -- env PATH="$work/links:$PATH" mgen-cc -show
"$p/bin/mgen-cc" -O1 "$projects/ring.c" -o "$work/ring" || exit 1
expect 0 "$ring4" -- sorted "$p/bin/mgen" run -n 4 -q "$work/ring"
expect 0 "rank 0 of 1 got 1 \(calls 1\)" -- "$work/ring"
# Started by itself, it runs under the installed mgen (found beside the libmgen.so it loaded).
# (LeakSanitizer cannot run under ptrace: off for this one, in sanitizer builds.)
if command -v strace >/dev/null; then
  expect 0 "execve\(\"$p/lib/\.\./bin/mgen\", .*\"run\", \"-n\", \"1\"" \
    -- env -u MGEN_RUNNER ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=execve "$work/ring"
fi
expect 0 "uses 5 MPI functions; mgen supports all of them" -- "$p/bin/mgen-cc" --check "$work/ring"

# Machine files by name, from the installed share/mgen/configs.
expect 0 "machine +hopper .*source +$p/share/mgen/configs/hopper\.toml" -- "$p/bin/mgen" info -c hopper
expect 0 "rank 0 of 2 got 12.*on nsim-ace-ib " -- "$p/bin/mgen" run -n 2 -c nsim-ace-ib.toml "$work/ring"
# In the build tree the same names resolve to the source tree's configs/.
expect 0 "source +$src/configs/hopper\.toml" -- "$build/mgen" info -c hopper
expect 2 "no-such-machine: no such machine file, nor a shipped one of that name in $p/share/mgen/configs \\(hopper, .*thunderx2-cx4\\)" \
  -- "$p/bin/mgen" run -n 2 -c no-such-machine "$work/ring"

# The installed recorder.
if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  mpicc -O1 "$projects/ring.c" -o "$work/ring.mpich" || exit 1
  expect 0 "rank 1 of 2 got 2" -- timeout 60 "$p/bin/mgen" record -n 2 --out "$work/trace" -- "$work/ring.mpich"
  expect 0 "mgen replay: 2 ranks.*predicted time" -- "$p/bin/mgen" replay "$work/trace"
fi

# The Debian package (cpack -G DEB, as in README): the same files under /usr, and its dependencies.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  expect 0 "package: .*mgen_[0-9.]+_[a-z0-9]+\.deb generated" -- cpack -G DEB -B "$work/deb" --config "$build/CPackConfig.cmake"
  deb=$(ls "$work"/deb/mgen_*.deb 2>/dev/null | head -1)
  expect 0 "\./usr/bin/mgen-cc .*\./usr/lib/cmake/mgen/mgenConfig\.cmake .*\./usr/lib/libmgen\.so .*\./usr/share/mgen/configs/hopper\.toml" \
    -- bash -c "dpkg-deb -c '$deb' | awk '{print \$NF}' | sort"
  expect 0 "Depends: .*libboost-context.*libmpich-dev" -- dpkg-deb -I "$deb"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "install: all passed"
