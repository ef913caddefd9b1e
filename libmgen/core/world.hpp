// The World: one simulated MPI job. It owns the engine, the network, the fiber runtime and
// every rank's state, and implements MPI's semantics on the engine side: matching with posted
// and unexpected queues in non-overtaking order, eager and rendezvous protocols, intra-node
// copies through the node's memory model, RDMA puts and gets.
//
// The rule (SimGrid's simcall rule): rank fibers never touch simulation state. A rank runs
// ahead on its own clock, appending operations to its outbox; when it must know something
// only the simulation can tell (a completion, a probe) it posts a blocking operation and
// suspends. The engine processes every outbox entry at its timestamp, in event order, and
// resumes the rank when its wait is satisfied. Same inputs, same event order, same result.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/comm.hpp"
#include "core/groups.hpp"
#include "core/match_queue.hpp"
#include "core/node_memory.hpp"
#include "core/shared_buffers.hpp"
#include "core/types.hpp"
#include "mgen/mpi/config.hpp"
#include "mgen/mpi/run.hpp"
#include "mgen/net/network.hpp"
#include "mgen/net/partition.hpp"
#include "runtime/fiber_runtime.hpp"

namespace mgen::mpi {

// Thrown through a rank's stack to end its fiber when the run stops (an error anywhere, or a
// deadlock). Never escapes the fiber.
struct RankUnwind {};

// One thread of execution of a rank: its main program, or a helper that runs a non-blocking
// collective's algorithm while the program goes on. Each has its own fiber, clock, outbox and
// block; all of a rank's contexts post into the rank's one request table and queues, so their
// messages match as one process's would. Context ids are fiber ids: a rank's main context has
// the rank's id, helpers come after the ranks.
struct Exec {
  uint32_t id = 0;  // the context's (= its fiber's)
  RankId rank = 0;  // whose context it is
  // 0 for a rank's main context, n for the n-th helper it started: with the rank, a name for the
  // context that does not depend on the order in which other ranks started theirs (the same-time
  // order of canonical events; a helper's id does).
  uint32_t ordinal = 0;
  Time clock;  // the context's own simulated time; never behind the engine while it runs
  enum class State : uint8_t { kReady, kRunning, kBlocked, kWaking, kFinished } state = State::kReady;
  Time finished_at;

  std::vector<Op> outbox;
  size_t outbox_head = 0;
  bool ops_scheduled = false;
  Block block;
  CallInfo call;                    // the MPI call the context is in
  const char* last_call = nullptr;  // the last MPI call it entered (fault reports name it)
  RankStats stats;
  // Per-function accounting (Rank::call_tally): how deep the context is in facade calls, and
  // the tally slot the bytes it posts go to (a helper keeps the slot of the call that made it).
  uint32_t scope_depth = 0;
  uint32_t call_slot = kNone;
  bool grouped = false;  // inside MGEN_Call_begin/end (a tool's calls on a program's behalf)
  Time group_start;
};

struct Rank : Exec {
  uint32_t node = 0;
  net::EndpointId endpoint = 0;

  std::vector<Request> requests;
  uint32_t free_request = kNone;
  uint32_t helpers_started = 0;  // Exec::ordinal of its helpers

  // Engine side of matching.
  MatchQueue posted;            // receive requests, in posting order
  MatchQueue unexpected;        // arrived eager messages and rendezvous requests (transfer slots)
  std::vector<uint32_t> early;  // arrived ahead of an earlier message from the same sender
  PeerCounters send_seq, recv_seq;
  std::unordered_map<int32_t, uint32_t> put_arrivals;  // RDMA puts landed, per tag, not yet polled

  // Communicators and groups by handle (1 = WORLD, 2 = SELF; groups: 1 = EMPTY).
  std::vector<std::unique_ptr<Comm>> comms;
  std::vector<std::shared_ptr<const Group>> groups;

  std::vector<TimelineEntry> timeline;
  // JobConfig::call_log (OTF2 output): the rank's calls and operations (only the program's own
  // calls are logged: the outermost Scope of the main context, Exec::scope_depth).
  bool log_calls = false;
  std::vector<CallEvent> calls;
  void log_call(CallEvent e) {
    e.time = clock;
    calls.push_back(e);
  }
  bool initialized = false, finalized = false;

  // The program's calls by function, in order of first use (a handful: linear search).
  std::vector<CallTally> call_tally;
  uint32_t tally_slot(const char* name);

  uint32_t alloc_request(ReqKind kind);
  void free_request_slot(uint32_t q);
};

// What a helper context runs: a collective algorithm on a channel bound to the context.
using HelperJob = std::function<void(Exec&)>;

class World;
struct OneStepPart;

// One member's part of a collective the engine completes in one step (Dimemas's collective
// model): what it called, with which arguments, and the finishing function. The engine keeps a
// pointer to it while the member waits.
// Moves the data, returns the duration; sets `error` (invalid usage: truncation, mismatched
// counts) to stop the run.
using OneStepFinish = Time (*)(World& world, const std::vector<const OneStepPart*>& parts, std::string& error);
struct OneStepPart {
  int op = 0;     // which collective; every member must name the same one
  int root = -1;  // the root, or -1; every member must name the same one
  const char* name = "";
  const void* args = nullptr;       // the member's argument struct, alive while it waits
  uint64_t sent = 0, received = 0;  // bytes of the largest message it sends / receives
  OneStepFinish finish = nullptr;
  RankId rank = 0;       // filled by the World
  uint32_t context = 0;  // the execution context that waits for it, filled by the World
};

struct RunOutcome {
  bool ok = true;
  std::string error;  // first error, or the deadlock report
  RunStatus status = RunStatus::kOk;
  int signal = 0;  // kCrashed: the signal that killed the rank; kInterrupted: SIGINT or SIGTERM
  Time predicted;  // latest rank finish
  Time drained;    // when the last event ran
};

class World : public net::MessageSink {
 public:
  World(const net::NetworkConfig& network, const MpiConfig& mpi, const NodeConfig& node, const JobConfig& job);
  ~World() override;

  // Runs `main` on every rank to the end (or to the first error or a deadlock).
  RunOutcome run(const RankMain& main, int argc, char** argv, const Progress& progress = {});

  // A run in steps, for partitioned runs (report/partitioned.cpp): prepare() schedules every
  // rank's start (`main` and `argv` must outlive the run); run_until() handles the events up to
  // `until` (inclusive) and returns false once the run has stopped with an error; finish() ends
  // the run and says how it went. run_until() and finish() must run on one thread, the fibers'.
  void prepare(const RankMain& main, int argc, char** argv, const Progress& progress = {});
  bool run_until(Time until);
  RunOutcome finish();
  // Partitioned runs (mgen/net/partition.hpp): this world runs only the ranks on partition
  // `part`'s routers (with their NICs and intra-node copies); messages to the others' ranks
  // cross at the windows' ends, described by pack_message/take_message. `groups` is the run's
  // one group table, shared by every partition's world. Before prepare().
  // `distributed`: other partitions run in other processes (nothing but messages reaches them).
  void join_partition(const net::PartitionPlan& plan, uint32_t part, GroupTable& groups, bool distributed = false);
  bool partitioned() const { return plan_ != nullptr; }
  bool distributed() const { return distributed_; }
  uint32_t ranks_finished() const { return ranks_finished_; }
  Time last_event() const { return last_event_; }
  // Whether this world runs rank `r` (always, unpartitioned).
  bool mine(RankId r) const {
    return plan_ == nullptr || plan_->router_part[network_.topology().endpoint_router(ranks_[r].endpoint)] == part_;
  }
  simcore::Engine& engine() { return engine_; }
  net::NetworkModel& network() { return network_; }
  // After run(), when JobConfig::partition_model: the model's measurements; else null.
  net::PartitionModel* partition_model() { return partition_model_.get(); }

  // The world of the run in progress on this thread, and the rank whose fiber is running.
  static World* active();

  // State a layer above keeps for this run (the MPI bindings' handles, windows, attributes),
  // owned by the world and destroyed with it; the core never looks inside. `key` is the address
  // of something of that layer's (one key per kind of state).
  struct Extension {
    virtual ~Extension() = default;
  };
  template <class T>
  T& extension(const void* key) {
    for (auto& [k, e] : extensions_) {
      if (k == key) return static_cast<T&>(*e);
    }
    auto owned = std::make_unique<T>(*this);
    T& out = *owned;
    extensions_.emplace_back(key, std::move(owned));
    return out;
  }
  // The rank whose context is running, and that context (its main one, or a helper).
  Rank& current();
  Exec& current_exec() { return exec(current_); }
  bool in_rank() const { return current_ != kNone; }
  Rank& owner(const Exec& x) { return ranks_[x.rank]; }

  // --- rank side: called from a rank's fiber (through the C facade or collectives) ---
  uint32_t post_send(Exec& r, const void* buf, uint64_t bytes, RankId dst, int tag, const Comm& comm, uint64_t context,
                     bool collective);
  uint32_t post_recv(Exec& r, void* buf, uint64_t capacity, int src_world, int tag, uint64_t context, bool collective);
  // An RDMA put (to `peer`) or get (from `peer`) of `bytes`.
  uint32_t post_rdma(Exec& r, ReqKind kind, RankId peer, uint64_t bytes, int tag);
  // Blocks until every request in `reqs` (kNone entries skipped) is complete.
  void wait_all(Exec& r, const uint32_t* reqs, uint32_t n);
  // Blocks until one is complete; returns its position (-1 if all are kNone).
  int wait_any(Exec& r, const uint32_t* reqs, uint32_t n);
  // True if the request is complete at the rank's current time.
  bool test(Exec& r, uint32_t req);
  // Blocks until a message matching (context, src, tag) can be received; fills its status.
  Status probe(Exec& r, uint64_t context, int src_world, int tag);
  bool iprobe(Exec& r, uint64_t context, int src_world, int tag, Status* status);
  void rdma_poll(Exec& r, int tag);
  // Cancels a receive that has not matched yet, or a send whose message no receive has
  // matched yet (either completes with status.cancelled; the receiver never sees the
  // message); false if it had matched (a receive: or completed) already.
  bool cancel(Exec& r, uint32_t req);
  void compute(Exec& r, Time t);
  // Starts a helper context of rank `r` (from its main context) at r's clock, running `job`.
  // Returns the rank's request (ReqKind::kHelper) that completes at the helper's finishing
  // time: wait for it, test it and free it like any other.
  uint32_t start_helper(Exec& r, HelperJob job);
  // The run's groups (interned) and Comm_split's exchange.
  GroupTable& groups() { return *groups_; }
  // Buffers every rank shares (MGEN_SHARED_MALLOC); messages from or to them move no bytes.
  SharedBuffers& shared_buffers() { return shared_; }
  // A collective done in one step: every member of `comm` posts its part; when the last one's
  // post is processed (at the latest arrival), the first member's `finish` runs once with all
  // parts in communicator order, moves the data and returns the duration; every member leaves
  // at that arrival plus the duration. Mismatched operations or roots stop the run.
  void one_step_collective(Exec& r, Comm& comm, OneStepPart& part);
  // Stops the whole run: records the error, unwinds the calling rank (throws RankUnwind).
  [[noreturn]] void fail(const std::string& message);

  const MpiConfig& mpi() const { return mpi_; }
  const NodeConfig& node_config() const { return node_; }
  const JobConfig& job() const { return job_; }
  uint32_t size() const { return static_cast<uint32_t>(ranks_.size()); }
  const Rank& rank(RankId r) const { return ranks_[r]; }
  const net::NetworkModel& network() const { return network_; }
  const simcore::Engine& engine() const { return engine_; }
  // Collective algorithm choice for this run (from the machine's [collectives]).
  const CollectiveConfig& collectives() const { return colls_; }
  void set_collectives(const CollectiveConfig& c) { colls_ = c; }
  uint64_t messages() const { return messages_; }
  struct MessageRecord {
    RankId src, dst;
    Time send_posted, sent, recv_posted, received;
    uint64_t bytes;
    int32_t tag;
    bool collective;
  };
  const std::vector<MessageRecord>& message_log() const { return message_log_; }
  // JobConfig::call_log: the communicators the ranks' call logs name, by context.
  void note_comm(const Comm& c);
  const std::map<uint64_t, std::vector<uint32_t>>& logged_comms() const { return logged_comms_; }
  uint64_t intra_node_messages() const { return transport_.copies(); }

  // net::MessageSink
  void on_message_sent(uint64_t cookie, Time t) override;
  void on_message_delivered(uint64_t cookie, Time t) override;
  void pack_message(uint64_t cookie, std::string& out) override;
  uint64_t take_message(uint64_t cookie, std::string_view bytes) override;

 private:
  // The world's own event kinds, counted from the first of the block the engine reserved for it.
  // Canonically ordered (schedule_event), an instant's operations run before its resumption, so
  // that every context woken by them resumes in one batch.
  enum Kind : uint16_t { kRankOps, kRankResume, kKindCount };
  enum class Xfer : uint8_t { kEager, kRts, kCts, kData, kPut, kPutAck, kGetReq, kGetData };
  // A message in flight between two ranks.
  struct Transfer {
    Xfer kind = Xfer::kEager;
    RankId src = 0, dst = 0;  // of this message
    uint32_t sreq = kNone;    // the originating rank's request
    uint32_t rreq = kNone;    // the receiving rank's request (rendezvous data)
    Envelope env;
    // Eager payload copied at send time: small ones inline, larger ones on the heap.
    static constexpr size_t kInline = 64;
    uint32_t inline_bytes = 0;
    std::byte inline_data[kInline];
    std::vector<std::byte> data;
    // A clear-to-send: the receive's capacity, and whether its buffer takes bytes (not null,
    // not shared); read by the sender when the receive is another partition's.
    uint64_t capacity = 0;
    bool into = false;
    bool carried = false;    // rendezvous data carrying its payload in `data` (partitioned runs)
    bool landed = false;     // the payload is already in the receive buffer (claim_receive)
    bool cancelled = false;  // its send was cancelled on the way: dropped on arrival
    bool probed = false;     // a probe reported it: the receive that follows must get it
    bool sent = false, delivered = false;
    uint32_t next_free = kNone;
  };

  // A helper context and what it runs; the slot is reused once its kDone was processed.
  struct Helper : Exec {
    HelperJob job;
    uint32_t done = kNone;  // the rank's request completed when the helper finishes
    bool in_use = false;
  };

  Exec& exec(uint32_t id) {
    if (id < ranks_.size()) return ranks_[id];
    return *helpers_[id - ranks_.size()];
  }
  // Runs `body` on a context's fiber, turning what escapes it into the run's error.
  void guarded(uint32_t id, const std::function<void()>& body);
  void run_helper(uint32_t id);  // a helper fiber's body
  void dispatch(const simcore::Event& e);
  // The router whose block a partitioned run would handle `e` in (the partition model).
  uint32_t event_router(const simcore::Event& e);
  void wake(Exec& r);
  void resume_batch();
  void process_ops(uint32_t id);
  void schedule_ops(Exec& r);
  void schedule_event(Time at, Kind kind, uint32_t target);
  void suspend(Exec& r);  // fiber side: park until resumed; unwinds if the run is stopping
  void block(Exec& r);    // fiber side: post the current Block and park
  // probe / iprobe: post a probe Block for (context, source, tag) and park until it is answered.
  void block_probe(Exec& r, Block::Kind kind, uint64_t context, int src_world, int tag);
  void block_on_requests(Exec& r, Block::Kind kind, const uint32_t* reqs, uint32_t n);  // fiber side
  bool evaluate_block(Exec& r);
  void wake_if_ready(Exec& r);
  void complete(RankId r, uint32_t req);
  void start_send(RankId r, uint32_t req);
  void start_recv(RankId r, uint32_t req);
  void start_put(RankId r, uint32_t req);
  void start_get(RankId r, uint32_t req);
  void arrive(RankId dst, uint32_t slot);
  void deliver_in_order(RankId dst, uint32_t slot);
  bool cancel_send(RankId id, uint32_t req);
  bool matches(const Request& q, const Envelope& env) const;
  // The receive at `dst` that the message `env` will match on arrival whatever happens
  // meanwhile, or kNone: see matching.cpp.
  uint32_t claim_receive(RankId dst, const Envelope& env);
  void match(RankId dst, uint32_t req, uint32_t slot);
  // Puts `bytes` of payload into receive `rq` of rank `dst`: copied, or reduced into it for a
  // folding receive (Request::fold_op).
  void land(RankId dst, Request& rq, const void* payload, uint64_t bytes);
  uint32_t new_transfer(Xfer kind, RankId src, RankId dst);
  void transmit(uint32_t slot, uint64_t wire_bytes);
  void transfer_done(uint32_t slot);
  void error(const std::string& message);  // engine side: stop the run
  void log_message(RankId dst, const Request& receive, const Envelope& env);
  void abort_ranks();
  // After fibers ran: a rank's program that faulted stops the run (diagnostics.cpp).
  void check_fault();
  // SIGINT or SIGTERM: stop after this event, the report marked interrupted.
  void interrupted();
  // JobConfig::memory_limit: whether the process's resident memory passed it (then the run is
  // stopping with an error that says so).
  bool memory_exceeded();

 public:
  // A deadlock: the blocked ranks (this world's, in a partitioned run) and helpers, what they
  // wait for, and the notes and stuck packets that explain it; deadlock_report() words one or
  // several partitions' as one report.
  struct Deadlock {
    size_t ranks = 0;                // blocked ranks: the first `ranks` lines; helpers after
    std::vector<std::string> lines;  // describe()
    std::vector<uint32_t> of;        // the rank of each of the first `ranks` lines
    std::string notes, stuck;
    Time at;  // when the last event ran
  };
  Deadlock deadlock() const;
  static std::string deadlock_report(const std::vector<Deadlock>& parts, size_t ranks);

 private:
  std::string describe(const Exec& r) const;

  MpiConfig mpi_;
  NodeConfig node_;
  JobConfig job_;
  CollectiveConfig colls_;
  simcore::Engine engine_;
  net::NetworkModel network_;
  NodeMemory transport_;  // the network behind each node's memory
  simcore::KindRange kinds_;
  bool canonical_ = false;  // schedule_event
  std::vector<Rank> ranks_;
  std::vector<std::unique_ptr<Helper>> helpers_;  // by context id - ranks; stable addresses
  std::vector<uint32_t> free_helpers_;
  std::vector<Transfer> transfers_;
  uint32_t free_transfer_ = kNone;
  std::unique_ptr<runtime::FiberRuntime> fibers_;
  std::unique_ptr<net::PartitionModel> partition_model_;  // JobConfig::partition_model
  uint32_t current_ = kNone;
  std::vector<uint32_t> waking_, batch_;  // contexts to resume at the current instant, in wake order
  bool resume_scheduled_ = false;
  std::vector<std::pair<Time, Time>> handled_;  // wait_all's scratch: (completed, handling cost)
  bool stopping_ = false;
  std::optional<std::string> error_;
  RunStatus status_ = RunStatus::kOk;  // why the run stopped early, once it has
  int signal_ = 0;
  std::exception_ptr foreign_exception_;
  uint64_t messages_ = 0;
  std::vector<MessageRecord> message_log_;
  std::map<uint64_t, std::vector<uint32_t>> logged_comms_;
  struct OneStep {
    std::vector<const OneStepPart*> parts;  // by communicator rank
    int arrived = 0;
  };
  std::map<std::pair<uint64_t, uint64_t>, OneStep> one_steps_;  // by (context, sequence)
  void arrive_one_step(Exec& r);
  GroupTable own_groups_;
  GroupTable* groups_ = &own_groups_;
  SharedBuffers shared_;
  const net::PartitionPlan* plan_ = nullptr;  // join_partition
  uint32_t part_ = 0;
  bool distributed_ = false;
  // prepare()'s arguments, for the fibers.
  const RankMain* main_ = nullptr;
  std::vector<std::string> args_;
  Progress progress_;
  uint64_t countdown_ = uint64_t{1} << 16;
  Time last_event_;  // when the last event ran
  uint32_t ranks_finished_ = 0;
  void spawn_fibers();
  // Last, so destroyed first: the layers above go before the state they were built on.
  std::vector<std::pair<const void*, std::unique_ptr<Extension>>> extensions_;
};

}  // namespace mgen::mpi
