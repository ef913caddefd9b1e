// Transparent huge pages for the applications' heaps.
//
// The ranks of a job live in this one process, and their buffers are its heap: 256 ranks with
// 2 MiB each are half a gigabyte, streamed through by every collective. With 4 KiB pages each
// pass misses the TLB once a page; with 2 MiB pages it does not (a tenth less CPU time for the
// 1 MiB allreduce at 256 ranks, docs/PERFORMANCE.md). Where the kernel gives huge pages only to
// memory that asks for them (transparent_hugepage "madvise", as on many distributions), glibc's
// malloc asks when the tunable glibc.malloc.hugetlb=1 is set, and glibc reads tunables only when
// a program starts: so mgen starts itself again once, with the tunable added.
#pragma once

namespace mgen::cli {

// Called first in main(). Either returns (nothing to do, or already restarted), or replaces the
// process with itself, the tunable added to GLIBC_TUNABLES. MGEN_HUGEPAGES=0 turns it off. In
// the restarted process it puts the user's environment back as it was, so that programs and
// commands mgen starts (`mgen record`'s mpiexec, gnuplot) see what the user set.
void restart_with_huge_pages(char** argv);

// What the heap got, for `mgen info`: "2 MiB transparent huge pages (glibc.malloc.hugetlb=1)",
// or why not.
const char* heap_pages();

}  // namespace mgen::cli
