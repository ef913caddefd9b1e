// The kernels' factories (one file each) and the registry's list.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nas.hpp"

namespace mgen::nas {

std::unique_ptr<Kernel> make_ep();
std::unique_ptr<Kernel> make_is();
std::unique_ptr<Kernel> make_cg();
std::unique_ptr<Kernel> make_mg();
std::unique_ptr<Kernel> make_ft();
std::unique_ptr<Kernel> make_lu();
std::unique_ptr<Kernel> make_bt();
std::unique_ptr<Kernel> make_sp();

// IS's create_seq on process `rank` of `np`: its first 21 keys (a check of the seeds).
std::vector<int64_t> is_first_keys(char cls, int np, int rank);

// Those written so far, in NPB's order.
std::vector<std::unique_ptr<Kernel>> make_kernels();

}  // namespace mgen::nas
