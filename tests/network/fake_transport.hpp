// The processes of an mpiexec launch, played by threads of one test (net::PartitionTransport
// without MPI): every call is a collective that all `size` players must make, as with MPI's.
// The hub keeps each player's contribution in its own slot; a call deposits, meets the others,
// reads, and meets them again before any slot can be written for the next call.
#pragma once

#include <barrier>
#include <cstdint>
#include <string>
#include <vector>

#include "mgen/net/partition.hpp"

namespace mgen::test {

class TransportHub {
 public:
  explicit TransportHub(uint32_t size) : size_(size), meet_(size), out_(size), value_(size), sums_(size) {}
  uint32_t size() const { return size_; }

 private:
  friend class FakeTransport;
  uint32_t size_;
  std::barrier<> meet_;
  std::vector<std::vector<std::string>> out_;  // out_[from][to]
  std::vector<int64_t> value_;
  std::vector<std::vector<uint64_t>> sums_;
};

class FakeTransport final : public net::PartitionTransport {
 public:
  FakeTransport(TransportHub& hub, uint32_t rank) : hub_(hub), rank_(rank) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return hub_.size_; }
  uint64_t calls() const { return calls_; }

  std::vector<std::string> exchange(const std::vector<std::string>& out) override {
    ++calls_;
    hub_.out_[rank_] = out;
    hub_.meet_.arrive_and_wait();
    std::vector<std::string> in(hub_.size_);
    for (uint32_t p = 0; p < hub_.size_; ++p)
      in[p] = hub_.out_[p].at(rank_);
    hub_.meet_.arrive_and_wait();
    return in;
  }
  int64_t min(int64_t value) override {
    ++calls_;
    hub_.value_[rank_] = value;
    hub_.meet_.arrive_and_wait();
    int64_t m = value;
    for (int64_t v : hub_.value_)
      m = v < m ? v : m;
    hub_.meet_.arrive_and_wait();
    return m;
  }
  void sum(std::vector<uint64_t>& values) override {
    ++calls_;
    hub_.sums_[rank_] = values;
    hub_.meet_.arrive_and_wait();
    for (uint32_t p = 0; p < hub_.size_; ++p) {
      if (p == rank_) continue;
      for (size_t i = 0; i < values.size(); ++i)
        values[i] += hub_.sums_[p].at(i);
    }
    hub_.meet_.arrive_and_wait();
  }
  std::string gather(const std::string& mine) override {
    ++calls_;
    hub_.out_[rank_].assign(1, mine);
    hub_.meet_.arrive_and_wait();
    std::string all;
    for (uint32_t p = 0; p < hub_.size_; ++p)
      all += hub_.out_[p].at(0);
    hub_.meet_.arrive_and_wait();
    return all;
  }

 private:
  TransportHub& hub_;
  uint32_t rank_;
  uint64_t calls_ = 0;
};

}  // namespace mgen::test
