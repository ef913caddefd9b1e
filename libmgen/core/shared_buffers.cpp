#include "core/shared_buffers.hpp"

namespace mgen::mpi {

void* SharedBuffers::allocate(const std::string& key, uint64_t bytes) {
  auto k = std::make_pair(key, bytes);
  if (auto it = by_key_.find(k); it != by_key_.end()) {
    ++it->second->users;
    return it->second->memory.get();
  }
  auto block = std::make_unique<Block>();
  // At least one byte, so every buffer has an address of its own; not initialised (pages
  // nobody writes are never touched).
  block->memory = std::make_unique_for_overwrite<std::byte[]>(bytes > 0 ? bytes : 1);
  block->bytes = bytes;
  block->users = 1;
  block->key = k;
  void* p = block->memory.get();
  by_key_.emplace(std::move(k), block.get());
  by_address_.emplace(reinterpret_cast<uintptr_t>(p), std::move(block));
  return p;
}

bool SharedBuffers::release(const void* p) {
  auto it = by_address_.find(reinterpret_cast<uintptr_t>(p));
  if (it == by_address_.end()) return false;
  if (--it->second->users == 0) {
    by_key_.erase(it->second->key);
    by_address_.erase(it);
  }
  return true;
}

const SharedBuffers::Block* SharedBuffers::find(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = by_address_.upper_bound(a);
  if (it == by_address_.begin()) return nullptr;
  --it;
  const Block& b = *it->second;
  return a < it->first + (b.bytes > 0 ? b.bytes : 1) ? &b : nullptr;
}

}  // namespace mgen::mpi
