#include "kernels.hpp"

namespace mgen::nas {

std::vector<std::unique_ptr<Kernel>> make_kernels() {
  std::vector<std::unique_ptr<Kernel>> k;
  k.push_back(make_ep());
  k.push_back(make_is());
  k.push_back(make_cg());
  k.push_back(make_mg());
  k.push_back(make_ft());
  k.push_back(make_lu());
  k.push_back(make_bt());
  k.push_back(make_sp());
  return k;
}

}  // namespace mgen::nas
