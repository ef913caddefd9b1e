#include "kernels.hpp"

namespace mgen::nas {

std::vector<std::unique_ptr<Kernel>> make_kernels() {
  std::vector<std::unique_ptr<Kernel>> k;
  k.push_back(make_cg());
  return k;
}

}  // namespace mgen::nas
