// `mgen validate --only zipper`: the Leiden Zipper's forwarder (MMPI) as an MGEN program.
#include <algorithm>
#include <map>

#include "mgen/mgen.h"
#include "validate.hpp"

namespace mgen::cli::validate {

// MMPI's forwarding protocol (thesis §3.2-3.3), over MGEN point-to-point: a client asks the
// forwarder for a transfer with a request of 7 integers and waits for a 1-integer transfer ID;
// the forwarder pairs a send request with the matching receive request and then moves the data
// itself, receiving all of it before sending it on, one transfer at a time.
namespace mmpi {

constexpr int kRequestTag = 1, kIdTag = 2, kDataTag = 1000;
enum Kind : int { kSend = 1, kRecv = 2, kStop = 3 };

// Handshake: returns the transfer ID.
int handshake(int forwarder, Kind kind, int self, int peer, int bytes, int tag) {
  int request[7] = {kind, self, peer, bytes, tag, 0, 0};
  MGEN_Send(request, 7, MGEN_INT, forwarder, kRequestTag, MGEN_COMM_WORLD);
  int id = 0;
  if (kind != kStop) MGEN_Recv(&id, 1, MGEN_INT, forwarder, kIdTag, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
  return id;
}
// Non-blocking in MMPI's sense: the handshake blocks, the data moves behind the request.
MGEN_Request isend(int forwarder, int self, int dst, int bytes, int tag) {
  const int id = handshake(forwarder, kSend, self, dst, bytes, tag);
  MGEN_Request q;
  MGEN_Isend(nullptr, bytes, MGEN_BYTE, forwarder, kDataTag + id, MGEN_COMM_WORLD, &q);
  return q;
}
MGEN_Request irecv(int forwarder, int self, int src, int bytes, int tag) {
  const int id = handshake(forwarder, kRecv, self, src, bytes, tag);
  MGEN_Request q;
  MGEN_Irecv(nullptr, bytes, MGEN_BYTE, forwarder, kDataTag + id, MGEN_COMM_WORLD, &q);
  return q;
}

// The forwarder: serves `clients` until each has sent a stop request.
void forward(int clients) {
  struct Pending {
    int kind, from, to, bytes, tag, id;
  };
  std::vector<Pending> pending;
  int next_id = 0, stopped = 0;
  while (stopped < clients) {
    int r[7];
    MGEN_Status st;
    MGEN_Recv(r, 7, MGEN_INT, MGEN_ANY_SOURCE, kRequestTag, MGEN_COMM_WORLD, &st);
    if (r[0] == kStop) {
      ++stopped;
      continue;
    }
    // A send request (from r[1] to r[2]) matches a receive request (at r[2] from r[1]).
    const int from = r[0] == kSend ? r[1] : r[2], to = r[0] == kSend ? r[2] : r[1];
    const auto match = std::find_if(pending.begin(), pending.end(), [&](const Pending& q) {
      return q.kind != r[0] && q.from == from && q.to == to && q.tag == r[4];
    });
    if (match == pending.end()) {
      pending.push_back(Pending{r[0], from, to, r[3], r[4], next_id});
      MGEN_Send(&next_id, 1, MGEN_INT, r[1], kIdTag, MGEN_COMM_WORLD);
      ++next_id;
      continue;
    }
    const Pending q = *match;
    pending.erase(match);
    MGEN_Send(&q.id, 1, MGEN_INT, r[1], kIdTag, MGEN_COMM_WORLD);
    // Store and forward, blocking: the forwarder handles one transfer at a time.
    MGEN_Recv(nullptr, q.bytes, MGEN_BYTE, from, kDataTag + q.id, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    MGEN_Send(nullptr, q.bytes, MGEN_BYTE, to, kDataTag + q.id, MGEN_COMM_WORLD);
  }
}

}  // namespace mmpi

// Thesis §3.3, Fig. 6: OSU bandwidth, bidirectional bandwidth and latency between the clusters
// through the forwarder, against a direct link. Ranks: 0 on LGM (node 0), 1 on DAS4 (node 8),
// 2 the forwarder (node 16).
void zipper(Context& c) {
  const config::MachineConfig m = c.machine("leiden-zipper.toml");
  const std::vector<uint32_t> nodes = {0, 8, 16};
  const int window = c.quick ? 8 : 64;  // osu_bw posts 64 sends back to back
  // One measurement: `bidirectional` both ranks send; `latency` ping-pong; otherwise 0 sends to 1.
  enum class Test { kBandwidth, kBidirectional, kLatency };
  auto measure = [&](Test test, bool via_forwarder, int bytes) {
    double seconds = 0;
    simulate(
        m, 3,
        [&](int rank, int) {
          if (rank == 2) {
            if (via_forwarder) mmpi::forward(2);
            return;
          }
          const int peer = 1 - rank;
          auto isend = [&](int tag) {
            MGEN_Request q;
            if (via_forwarder) return mmpi::isend(2, rank, peer, bytes, tag);
            MGEN_Isend(nullptr, bytes, MGEN_BYTE, peer, tag, MGEN_COMM_WORLD, &q);
            return q;
          };
          auto irecv = [&](int tag) {
            MGEN_Request q;
            if (via_forwarder) return mmpi::irecv(2, rank, peer, bytes, tag);
            MGEN_Irecv(nullptr, bytes, MGEN_BYTE, peer, tag, MGEN_COMM_WORLD, &q);
            return q;
          };
          const double t0 = MGEN_Wtime();
          if (test == Test::kLatency) {
            const int reps = 4;
            for (int k = 0; k < reps; ++k) {
              MGEN_Request q = rank == 0 ? isend(k) : irecv(k);
              MGEN_Wait(&q, MGEN_STATUS_IGNORE);
              q = rank == 0 ? irecv(k) : isend(k);
              MGEN_Wait(&q, MGEN_STATUS_IGNORE);
            }
            if (rank == 0) seconds = (MGEN_Wtime() - t0) / (2 * reps);
          } else {
            std::vector<MGEN_Request> qs;
            for (int k = 0; k < window; ++k) {
              if (rank == 0 || test == Test::kBidirectional) qs.push_back(isend(k));
              if (rank == 1 || test == Test::kBidirectional) qs.push_back(irecv(k));
            }
            MGEN_Waitall(static_cast<int>(qs.size()), qs.data(), MGEN_STATUSES_IGNORE);
            const double t = MGEN_Wtime() - t0;
            seconds = std::max(seconds, t);
          }
          if (via_forwarder) mmpi::handshake(2, mmpi::kStop, rank, 0, 0, 0);
        },
        1, nodes);
    if (test == Test::kLatency) return seconds * 1e6;  // us
    const double directions = test == Test::kBidirectional ? 2 : 1;
    return directions * window * bytes / seconds / 1e6;  // MB/s
  };
  Plot bw{"zipper_fig6_bandwidth.png",
          "Leiden Zipper Fig. 6: bandwidth through the forwarder and direct",
          "message size (bytes)",
          "bandwidth (MB/s)",
          true,
          false,
          {}};
  Plot lat{"zipper_fig6_latency.png",
           "Leiden Zipper Fig. 6: latency through the forwarder and direct",
           "message size (bytes)",
           "latency (us)",
           true,
           true,
           {}};
  std::map<std::string, std::map<int, double>> v;
  const int top = c.quick ? 1 << 20 : 4 << 20;
  for (const bool fwd : {false, true}) {
    const std::string how = fwd ? "forwarder" : "direct";
    Series b{how + ", bw", {}}, bb{how + ", bibw", {}}, l{how, {}};
    for (int bytes = 1; bytes <= top; bytes *= c.quick ? 16 : 4) {
      v[how + " bw"][bytes] = measure(Test::kBandwidth, fwd, bytes);
      v[how + " bibw"][bytes] = measure(Test::kBidirectional, fwd, bytes);
      v[how + " lat"][bytes] = measure(Test::kLatency, fwd, bytes);
      b.xy.emplace_back(bytes, v[how + " bw"][bytes]);
      bb.xy.emplace_back(bytes, v[how + " bibw"][bytes]);
      l.xy.emplace_back(bytes, v[how + " lat"][bytes]);
    }
    bw.series.push_back(b);
    bw.series.push_back(bb);
    lat.series.push_back(l);
  }
  const int big = v["direct bw"].rbegin()->first;
  const double direct_ratio = v["direct bibw"][big] / v["direct bw"][big];
  const double fwd_ratio = v["forwarder bibw"][big] / v["forwarder bw"][big];
  c.claim("Zipper §3.3, Fig. 6", "direct InfiniBand: bidirectional bandwidth doubles (full duplex)", direct_ratio > 1.8,
          fmt::format("{} B: bibw / bw = {:.2f}", big, direct_ratio));
  c.claim("Zipper §3.3, Fig. 6",
          "through the forwarder bidirectional bandwidth does not double (one transfer at a time: half duplex)",
          fwd_ratio < 1.2, fmt::format("{} B: bibw / bw = {:.2f}", big, fwd_ratio));
  const double small_ratio = v["forwarder lat"][1] / v["direct lat"][1];
  c.claim("Zipper §3.3, Fig. 6", "the handshake at least doubles small-message latency", small_ratio >= 2,
          fmt::format("1 B: {:.2f} us vs {:.2f} us direct ({:.2f}x)", v["forwarder lat"][1], v["direct lat"][1],
                      small_ratio));
  const double large_ratio = v["forwarder lat"][big] / v["direct lat"][big];
  c.claim("Zipper §3.3, Fig. 6", "large messages: close to two transfers in series (store and forward)",
          large_ratio > 1.8 && large_ratio < 2.4,
          fmt::format("{} B: {:.1f} us vs {:.1f} us direct ({:.2f}x)", big, v["forwarder lat"][big],
                      v["direct lat"][big], large_ratio));
  c.plots.push_back(bw);
  c.plots.push_back(lat);
}

}  // namespace mgen::cli::validate
