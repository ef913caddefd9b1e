// What a machine and a job need of this computer, estimated before anything is built or loaded,
// so that an impossible size is refused with its figures instead of ending in a bare
// std::bad_alloc, the kernel's OOM killer, or a dlopen failure thousands of ranks in.
//
// The figures per router, port, endpoint, rank and program copy were measured (peak RSS and
// /proc/self/maps of real runs at several sizes; the report of the change that added this file
// lists them). They are estimates of mgen's own memory: what the program itself allocates is not
// known before it runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>

#include "mgen/config/machine.hpp"
#include "mgen/mpi/run.hpp"

namespace mgen::cli {

// An estimate said no (bad input: exit status 2); the message gives the figures and the way out.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Memory ran out although the estimate allowed it (or --force skipped it): exit status 1, with
// what was being built.
class OutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs f; a std::bad_alloc becomes OutOfMemory("out of memory while WHAT ...").
template <class F>
auto building(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("out of memory while " + what +
                      " (std::bad_alloc; see the memory limits of this computer: ulimit -v, cgroups, free memory)");
  }
}

// Memory this process may still take: MemAvailable of /proc/meminfo, lowered by a cgroup's
// memory.max and by `ulimit -v` where those are set. `source` says which one bounds it. Under
// MGEN_MEMORY_SHARE=N (mgen sweep sets it for runs that share the computer N at a time) a
// 1/N share of that.
struct HostMemory {
  uint64_t bytes = 0;
  std::string source;
  // `ulimit -v` is the bound: reservations count (the ranks' stacks), not only what is touched.
  bool address_space = false;
};
HostMemory host_memory();

// The network of machine `m` (topology, routing and the backend's state) in bytes, for a job of
// `ranks` ranks ("auto" picks its backend by the rank count; 0: as `mgen info` builds it).
uint64_t network_bytes(const config::MachineConfig& m, uint32_t ranks);

// Before a machine is built (config::BeforeBuild): refuses one whose network cannot fit.
void check_machine_memory(const config::MachineConfig& m, bool force);

// Before a partitioned run (traffic --threads, or under mpiexec): `copies` partitions on this
// computer, each holding the whole network.
void check_partitions_memory(const config::MachineConfig& m, uint32_t copies, bool force);

// Before a job starts (and before a recompiled program is loaded once per rank): the ranks must
// have places on the machine (nodes x ranks per node, or the rank map), and the job must fit in
// memory and, for recompiled programs, under the kernel's map-count limit. `program` is the
// module loaded per rank (empty for MGEN programs, which are loaded once, and for replays).
void check_job(const config::MachineConfig& m, const mpi::JobConfig& job, const std::filesystem::path& program,
               bool force);

}  // namespace mgen::cli
