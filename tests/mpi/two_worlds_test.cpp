// Two simulations in one process: the MPI layer's state (derived datatypes, user operations,
// requests, attributes, windows) belongs to each run's World, so two runs on two threads at once
// give exactly what each gives alone, and neither sees the other's handles.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <tuple>
#include <vector>

#include "harness.hpp"

using namespace mgen;

namespace {

struct Values {
  int sum0 = 0, sum1 = 0, cell = -1, last = -1;
  bool attr_ok = false;
  bool operator==(const Values&) const = default;
};

// Derived datatype, user operation, attribute, window and point-to-point traffic, per rank.
// Writes what it computed into `out[rank]`.
void program(int rank, int size, int salt, std::vector<Values>& out) {
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op;
  MPI_Op_create(
      [](void* in, void* io, int* n, MPI_Datatype*) {
        for (int i = 0; i < *n; ++i)
          static_cast<int*>(io)[i] = static_cast<int*>(io)[i] * 3 + static_cast<int*>(in)[i];
      },
      0, &op);
  int keyval = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, nullptr);
  static int attr_value[2] = {0, 0};
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &attr_value[salt & 1]);

  int mine[2] = {rank + salt, rank * salt}, sum[2] = {0, 0};
  MPI_Allreduce(mine, sum, 1, pair, op, MPI_COMM_WORLD);

  int cell = -1;
  MPI_Win win;
  MPI_Win_create(&cell, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  const int v = rank * 100 + salt;
  MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);

  std::vector<int> big(static_cast<size_t>(1000 * (salt + 1)), rank);
  std::vector<int> got(big.size(), -1);
  MPI_Request req[2];
  MPI_Irecv(got.data(), static_cast<int>(got.size()), MPI_INT, (rank + size - 1) % size, salt, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(big.data(), static_cast<int>(big.size()), MPI_INT, (rank + 1) % size, salt, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

  void* attr = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &attr, &found);
  out[static_cast<size_t>(rank)] = Values{sum[0], sum[1], cell, got.back(), found && attr == &attr_value[salt & 1]};
  MPI_Comm_free_keyval(&keyval);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
}

struct Outcome {
  int64_t predicted_ps = 0;
  std::vector<Values> values;
  bool ok = false;
};

Outcome run(uint32_t ranks, int salt) {
  Outcome o;
  o.values.assign(ranks, Values{});
  mpi::JobConfig job;
  job.ranks = ranks;
  job.measure_compute = false;
  const mpi::RunReport r = mpi::run_job(test::machine_for(64), job,
                                        [&](int, char**) {
                                          mpi::mpi_program_begin();
                                          MPI_Init(nullptr, nullptr);
                                          int rank = 0, size = 0;
                                          MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                                          MPI_Comm_size(MPI_COMM_WORLD, &size);
                                          program(rank, size, salt, o.values);
                                          MPI_Finalize();
                                          mpi::mpi_program_end();
                                        },
                                        {"two_worlds"});
  o.ok = r.ok;
  o.predicted_ps = r.predicted.count_ps();
  return o;
}

}  // namespace

TEST_CASE("two simulations on two threads at once predict and compute what each does alone", "[shim][worlds]") {
  const Outcome a = run(6, 1);
  const Outcome b = run(4, 2);
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  // What each rank received: its left neighbour's put and its left neighbour's block.
  for (const auto& [o, size, salt] : {std::tuple{&a, 6, 1}, std::tuple{&b, 4, 2}}) {
    for (int rank = 0; rank < size; ++rank) {
      const Values& v = o->values[static_cast<size_t>(rank)];
      const int left = (rank + size - 1) % size;
      CHECK(v.cell == left * 100 + salt);
      CHECK(v.last == left);
      CHECK(v.attr_ok);
      CHECK(v.sum0 == o->values[0].sum0);  // an allreduce: the same everywhere
    }
  }
  Outcome a2, b2;
  std::thread ta([&] { a2 = run(6, 1); });
  std::thread tb([&] { b2 = run(4, 2); });
  ta.join();
  tb.join();
  CHECK(a2.ok);
  CHECK(b2.ok);
  CHECK(a2.predicted_ps == a.predicted_ps);
  CHECK(b2.predicted_ps == b.predicted_ps);
  CHECK(a2.values == a.values);
  CHECK(b2.values == b.values);
  // One after another on one thread, too.
  const Outcome a3 = run(6, 1);
  CHECK(a3.values == a.values);
  CHECK(a3.predicted_ps == a.predicted_ps);
}
