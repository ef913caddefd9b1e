// Shared application buffers (SimGrid SMPI's SMPI_SHARED_MALLOC idea, Degomme et al. 2017):
// one physical buffer handed to every rank that allocates at the same call site (or with the
// same key) and size, so a job whose ranks each hold large payloads fits in one process's
// memory. Contents are undefined (every rank writes the same bytes); the network still
// charges every message, but messages from or to a shared buffer move no bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace mgen::mpi {

class SharedBuffers {
 public:
  // The buffer of (`key`, `bytes`), created on first use; each call counts one user.
  void* allocate(const std::string& key, uint64_t bytes);
  // Drops one user of the buffer starting at `p`; the last frees it. False if `p` is not the
  // start of a shared buffer.
  bool release(const void* p);
  // Whether `p` points into a shared buffer (false for null).
  bool contains(const void* p) const {
    if (p == nullptr || by_address_.empty()) return false;
    return find(p) != nullptr;
  }
  size_t count() const { return by_address_.size(); }

 private:
  struct Block {
    std::unique_ptr<std::byte[]> memory;
    uint64_t bytes = 0;
    uint32_t users = 0;
    std::pair<std::string, uint64_t> key;
  };
  const Block* find(const void* p) const;

  std::map<std::pair<std::string, uint64_t>, Block*> by_key_;
  std::map<uintptr_t, std::unique_ptr<Block>> by_address_;  // by start address
};

}  // namespace mgen::mpi
