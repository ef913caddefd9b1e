// The MPI ABI layer (MPICH's mpi.h over libmgen), called in-process: error classes and
// handlers, truncation, synchronous sends against the rendezvous protocol, cancellation,
// polling cost, intercommunicators.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "harness.hpp"
#include "mgen/mpix.h"

using namespace mgen;
using test::Time;

namespace {

// Runs `body(rank, size)` as an MPI program (Init/Finalize around it), with measured compute
// off so that only modelled time passes.
mpi::RunReport run_mpi(uint32_t ranks, const std::function<void(int, int)>& body,
                       mpi::MachineSetup machine = test::machine_for(64)) {
  mpi::JobConfig job;
  job.ranks = ranks;
  job.stack_bytes = 256 * 1024;
  job.measure_compute = false;
  return mpi::run_job(machine, job,
                      [&body](int, char**) {
                        mpi::mpi_program_begin();
                        MPI_Init(nullptr, nullptr);
                        int rank = 0, size = 0;
                        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                        MPI_Comm_size(MPI_COMM_WORLD, &size);
                        body(rank, size);
                        MPI_Finalize();
                        mpi::mpi_program_end();
                      },
                      {"shim_test"});
}

int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

int handler_calls = 0, handler_class = -1;

void count_errors(MPI_Comm*, int* code, ...) {
  ++handler_calls;
  MPI_Error_class(*code, &handler_class);
}

}  // namespace

TEST_CASE("a truncated receive is returned under MPI_ERRORS_RETURN with what fits", "[shim][errors]") {
  std::vector<int> got(4, -1);
  int rc = 0, status_error = 0, count = -1, waitall_rc = 0, in_status = 0;
  const auto r = run_mpi(2, [&](int rank, int) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int big[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    if (rank == 0) {
      MPI_Send(big, 8, MPI_INT, 1, 5, MPI_COMM_WORLD);
      std::vector<int> large(100000, 7);  // rendezvous-sized: the data phase truncates too
      MPI_Send(large.data(), 100000, MPI_INT, 1, 6, MPI_COMM_WORLD);
      MPI_Send(big, 8, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else {
      MPI_Status st;
      rc = MPI_Recv(got.data(), 3, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
      status_error = st.MPI_ERROR;
      MPI_Get_count(&st, MPI_INT, &count);
      std::vector<int> part(10, -1);
      const int rc2 = MPI_Recv(part.data(), 10, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(error_class(rc2) == MPI_ERR_TRUNCATE);
      CHECK(part == std::vector<int>(10, 7));
      // Several at once: MPI_ERR_IN_STATUS, and the failed one's status says which.
      int small = 0, none = 0;
      MPI_Request rq[2];
      MPI_Irecv(&small, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[0]);
      MPI_Irecv(&none, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[1]);
      MPI_Status sts[2];
      waitall_rc = MPI_Waitall(2, rq, sts);
      in_status = sts[0].MPI_ERROR == MPI_ERR_TRUNCATE && sts[1].MPI_ERROR == MPI_SUCCESS && small == 10;
    }
  });
  REQUIRE(r.ok);
  CHECK(error_class(rc) == MPI_ERR_TRUNCATE);
  CHECK(status_error == MPI_ERR_TRUNCATE);
  CHECK(count == 3);
  CHECK(got == std::vector<int>{10, 11, 12, -1});
  CHECK(waitall_rc == MPI_ERR_IN_STATUS);
  CHECK(in_status == 1);
}

TEST_CASE("a truncated receive stops the run by default, naming sender, tag and sizes", "[shim][errors]") {
  const auto r = run_mpi(2, [](int rank, int) {
    int v[8] = {};
    if (rank == 0) MPI_Send(v, 8, MPI_INT, 1, 5, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(v, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  });
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("rank 1: MPI_Recv: MPI_ERR_TRUNCATE") &&
                          Catch::Contains("a message of 32 bytes from rank 0 (tag 5) is longer than the receive "
                                          "buffer of 8 bytes"));
}

TEST_CASE("the MGEN API stops on truncation with the same facts", "[shim][errors]") {
  const auto r = test::run(2, [](int rank, int) {
    int v[8] = {};
    MGEN_Request q = MGEN_REQUEST_NULL;
    if (rank == 0) MGEN_Send(v, 8, MGEN_INT, 1, 3, MGEN_COMM_WORLD);
    if (rank == 1) {
      MGEN_Irecv(v, 4, MGEN_INT, 0, 3, MGEN_COMM_WORLD, &q);
      MGEN_Waitall(1, &q, MGEN_STATUSES_IGNORE);
    }
  });
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("MGEN_Waitall: MGEN_ERR_TRUNCATE: a message of 32 bytes from rank 0 (tag 3)") &&
                          Catch::Contains("receive buffer of 16 bytes"));
}

TEST_CASE("error classes of invalid arguments reach MPI_ERRORS_RETURN and user handlers", "[shim][errors]") {
  int codes[6] = {};
  handler_calls = 0;
  const auto r = run_mpi(2, [&](int, int size) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int v = 0;
    codes[0] = error_class(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
    codes[1] = error_class(MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD));
    codes[2] = error_class(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    codes[3] = error_class(MPI_Bcast(&v, 1, MPI_INT, size + 1, MPI_COMM_WORLD));
    codes[4] = error_class(MPI_Allreduce(&v, &v, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, eh);
    codes[5] = error_class(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL));  // MPI_COMM_WORLD's: returns
    MPI_Recv(&v, 1, MPI_INT, size + 7, 0, dup, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);
  });
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(codes[0] == MPI_ERR_RANK);
  CHECK(codes[1] == MPI_ERR_TAG);
  CHECK(codes[2] == MPI_ERR_COUNT);
  CHECK(codes[3] == MPI_ERR_ROOT);
  CHECK(codes[4] == MPI_ERR_OP);
  CHECK(codes[5] == MPI_ERR_COMM);
  CHECK(handler_calls == 2);  // once per rank
  CHECK(handler_class == MPI_ERR_RANK);
}

TEST_CASE("MPI_Ssend of a small message takes exactly the rendezvous protocol's time", "[shim][p2p]") {
  // The receiver posts late; a synchronous send must wait for it, then (as a rendezvous send
  // does) for the clear-to-send and the data. The second way: a plain send of the same bytes on
  // a machine whose eager threshold is 0, so that it uses the rendezvous protocol.
  auto ends = [](bool ssend, mpi::MachineSetup m) {
    double end = 0;
    const auto r = run_mpi(
        2,
        [&](int rank, int) {
          double v = 1;
          if (rank == 0) {
            if (ssend) {
              MPI_Ssend(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            } else {
              MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            }
            end = MPI_Wtime();
          } else {
            MPI_Comp(10e-6);
            MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }
        },
        m);
    REQUIRE(r.ok);
    return end;
  };
  const mpi::MachineSetup m = test::machine_for(64);
  mpi::MachineSetup rdv = m;
  rdv.mpi.eager_threshold = simcore::Bytes(0);
  const double ssend = ends(true, m), eager = ends(false, m), rendezvous = ends(false, rdv);
  CHECK(eager < 1e-6);  // buffered: the sender does not wait for the receiver
  CHECK(ssend > 10e-6);
  CHECK(ssend == rendezvous);
}

TEST_CASE("a cancelled receive completes as cancelled and matches nothing", "[shim][p2p]") {
  int cancelled = 0, value = 0;
  const auto r = run_mpi(2, [&](int rank, int) {
    int v = rank == 0 ? 42 : -1;
    if (rank == 1) {
      int lost = -1;
      MPI_Request rq;
      MPI_Irecv(&lost, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &rq);
      MPI_Cancel(&rq);
      MPI_Status st;
      MPI_Wait(&rq, &st);
      MPI_Test_cancelled(&st, &cancelled);
      CHECK(lost == -1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      value = v;
    }
  });
  REQUIRE(r.ok);
  CHECK(cancelled == 1);
  CHECK(value == 42);
}

TEST_CASE("each unsuccessful MPI_Test costs mpi.poll_overhead of simulated time", "[shim][p2p]") {
  mpi::MachineSetup m = test::machine_for(64);
  m.mpi.poll_overhead = Time::ns(70);
  double elapsed = -1;
  int flag = 1;
  const auto r = run_mpi(
      1,
      [&](int, int) {
        int v = 0;
        MPI_Request rq;
        MPI_Irecv(&v, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &rq);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < 1000; ++i)
          MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        elapsed = MPI_Wtime() - t0;
        MPI_Cancel(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      },
      m);
  REQUIRE(r.ok);
  CHECK(flag == 0);
  CHECK(elapsed == Approx(1000 * 70e-9).epsilon(1e-9));
}

TEST_CASE("intercommunicators: point-to-point across, merge orders the low group first", "[shim][comm]") {
  std::vector<int> merged_rank(5, -1), peer_value(5, -1), bcast_value(5, 0);
  const auto r = run_mpi(5, [&](int rank, int) {
    // Evens (0,2,4) and odds (1,3); leaders are world ranks 0 and 1.
    MPI_Comm local, inter, merged;
    const int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 33, &inter);
    int lr = 0, rs = 0, flag = 0;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag == 1);
    CHECK(rs == (color == 0 ? 2 : 3));
    // Local rank i talks to remote rank i where both exist.
    if (lr < rs) {
      int got = -1;
      MPI_Sendrecv(&rank, 1, MPI_INT, lr, 1, &got, 1, MPI_INT, lr, 1, inter, MPI_STATUS_IGNORE);
      peer_value[rank] = got;
    }
    MPI_Group remote;
    MPI_Comm_remote_group(inter, &remote);
    int gs = 0;
    MPI_Group_size(remote, &gs);
    CHECK(gs == rs);
    MPI_Group_free(&remote);
    // The odds ask to go first (high = 0), so they take merged ranks 0 and 1.
    MPI_Intercomm_merge(inter, color == 0 ? 1 : 0, &merged);
    MPI_Comm_rank(merged, &merged_rank[rank]);
    // An intercommunicator broadcast goes from one group to the other (MPI-4.0 §6.2.2): the
    // root passes MPI_ROOT, its group MPI_PROC_NULL, the other group the root's rank there.
    int v = color == 0 && lr == 0 ? 77 : -1;
    const int root = color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    bcast_value[rank] = v;
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
  });
  REQUIRE(r.ok);
  CHECK(peer_value == std::vector<int>{1, 0, 3, 2, -1});
  CHECK(merged_rank == std::vector<int>{2, 0, 3, 1, 4});
  // The odds received; the evens' buffers are untouched (the root keeps its value).
  CHECK(bcast_value == std::vector<int>{77, 77, -1, 77, -1});
}

TEST_CASE(
    "a collective on an intercommunicator runs, and a root that is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank "
    "is MPI_ERR_ROOT",
    "[shim][comm]") {
  std::vector<int> bad_root(2, MPI_SUCCESS);
  const auto r = run_mpi(2, [&](int rank, int) {
    MPI_Comm inter;
    MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1 - rank, 0, &inter);
    MPI_Barrier(inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int v = 0;
    // The remote group has one rank: root 1 names no rank of it.
    const int code = MPI_Bcast(&v, 1, MPI_INT, 1, inter);
    MPI_Error_class(code, &bad_root[rank]);
    MPI_Comm_free(&inter);
  });
  REQUIRE(r.ok);
  CHECK(bad_root == std::vector<int>{MPI_ERR_ROOT, MPI_ERR_ROOT});
}

TEST_CASE("communicator names round-trip and MPI_Get_version matches the header", "[shim][env]") {
  std::string world, named;
  int version = 0, subversion = 0;
  const auto r = run_mpi(1, [&](int, int) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    world = name;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "solver");
    MPI_Comm_get_name(dup, name, &len);
    named = std::string(name, static_cast<size_t>(len));
    MPI_Comm_free(&dup);
    MPI_Get_version(&version, &subversion);
  });
  REQUIRE(r.ok);
  CHECK(world == "MPI_COMM_WORLD");
  CHECK(named == "solver");
  CHECK(version == MPI_VERSION);
  CHECK(subversion == MPI_SUBVERSION);
}
