// Process topologies (MPI-4 chapter 8): Cartesian grids (kept by the MGEN layer), graphs and
// distributed graphs (kept here, per rank, beside their communicators), MPI_Dims_create as
// MPICH factorises, and the neighbourhood collectives over point-to-point.
#include "mpi/topo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

int sentinel_unweighted = 0, sentinel_weights_empty = 0;

}  // namespace

extern "C" {
// MPICH's mpi.h declares these as data: programs that name them need the symbols.
int* const MPI_UNWEIGHTED = &sentinel_unweighted;
int* const MPI_WEIGHTS_EMPTY = &sentinel_weights_empty;
}

namespace {

// A graph (MPI_Graph_create) or distributed graph (MPI_Dist_graph_create*) topology. Cartesian
// communicators get one too, holding only the shadow communicator.
struct Topo {
  int kind = MPI_UNDEFINED;                             // MPI_GRAPH, MPI_DIST_GRAPH, MPI_CART
  std::vector<int> index, edges;                        // MPI_GRAPH: every node's, as given
  std::vector<int> sources, sweights, dests, dweights;  // MPI_DIST_GRAPH: this rank's
  bool weighted = false;
  // The neighbourhood collectives' own communicator (a duplicate made on first use), so their
  // messages never match the program's point-to-point ones.
  MPI_Comm shadow = MPI_COMM_NULL;
};

struct Topos : World::Extension {
  explicit Topos(World& w) : ranks(w.size()) {}
  std::vector<std::unordered_map<MPI_Comm, Topo>> ranks;
};
const char kToposKey = 0;

std::unordered_map<MPI_Comm, Topo>& topos() {
  return scope().world().extension<Topos>(&kToposKey).ranks[scope().rank().id];
}

bool is_cart(MPI_Comm c) {
  return scope().rank().comms[comm(c)]->cart.has_value();
}

// The graph or distributed-graph topology of `c`, or null.
Topo* topo_of(MPI_Comm c) {
  comm(c);
  auto& t = topos();
  auto it = t.find(c);
  return it == t.end() || it->second.kind == MPI_CART ? nullptr : &it->second;
}

Topo& need(MPI_Comm c, int kind, const char* what) {
  Topo* t = topo_of(c);
  if (t == nullptr || t->kind != kind) fail(MPI_ERR_TOPOLOGY, fmt::format("the communicator has no {} topology", what));
  return *t;
}

// A new communicator gets its parent's error handler (MPI-4 §9.3).
void inherit_errhandler(MPI_Comm parent, MPI_Comm child) {
  auto& eh = state().comm_errhandler;
  auto it = eh.find(parent);
  if (child != MPI_COMM_NULL && it != eh.end()) eh[child] = it->second;
}

int comm_size(MPI_Comm c) {
  int n = 0;
  MGEN_Comm_size(comm(c), &n);
  return n;
}

int comm_rank(MPI_Comm c) {
  int r = 0;
  MGEN_Comm_rank(comm(c), &r);
  return r;
}

// ---- MPI_Dims_create

// Every way to write n as a product of k factors, non-increasing, each at most `limit`;
// `divisors` holds the divisors of the original n, largest first (every factor is one).
template <class F>
void each_factorisation(int n, int k, int limit, const std::vector<int>& divisors, std::vector<int>& prefix,
                        F&& visit) {
  if (k == 1) {
    if (n <= limit) {
      prefix.push_back(n);
      visit(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int d : divisors) {
    if (d > limit || d > n || n % d != 0) continue;
    // The remaining k-1 factors are at most d: stop when they cannot reach n / d.
    int64_t reach = 1;
    for (int i = 1; i < k && reach < n / d; ++i)
      reach *= d;
    if (reach < n / d) break;
    prefix.push_back(d);
    each_factorisation(n / d, k - 1, d, divisors, prefix, visit);
    prefix.pop_back();
  }
}

// MPICH 4.0's choice, checked against its output for every n <= 400 in 1 to 4 dimensions
// (tests/mpi_programs/topo_dims.c): the factorisation with the smallest spread (largest factor
// minus smallest); among equal spreads, the one whose factors, in increasing order, are
// lexicographically largest. Returned non-increasing.
std::vector<int> balanced_factors(int n, int k) {
  std::vector<int> best, prefix, asc_best, divisors;
  for (int d = 1; static_cast<int64_t>(d) * d <= n; ++d) {
    if (n % d != 0) continue;
    divisors.push_back(d);
    if (d != n / d) divisors.push_back(n / d);
  }
  std::sort(divisors.rbegin(), divisors.rend());
  int best_spread = 0;
  each_factorisation(n, k, n, divisors, prefix, [&](const std::vector<int>& f) {
    const int spread = f.front() - f.back();
    std::vector<int> asc(f.rbegin(), f.rend());
    if (best.empty() || spread < best_spread || (spread == best_spread && asc > asc_best)) {
      best = f;
      best_spread = spread;
      asc_best = std::move(asc);
    }
  });
  return best;
}

}  // namespace

namespace mgen::mpi::abi {

void copy_topology(MPI_Comm from, MPI_Comm to) {
  auto& t = topos();
  auto it = t.find(from);
  if (it == t.end() || it->second.kind == MPI_CART) return;
  Topo copy = it->second;
  copy.shadow = MPI_COMM_NULL;
  t[to] = std::move(copy);
}

Neighbors neighbors(MPI_Comm c) {
  Neighbors n;
  if (is_cart(c)) {
    // MPI-4 §8.6: per dimension, the neighbour in the negative direction, then the positive.
    int nd = 0;
    PMPI_Cartdim_get(c, &nd);
    for (int d = 0; d < nd; ++d) {
      int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
      PMPI_Cart_shift(c, d, 1, &lo, &hi);
      n.in.push_back(lo);
      n.in.push_back(hi);
    }
    n.out = n.in;
    n.cart = true;
  } else if (const Topo* t = topo_of(c); t != nullptr && t->kind == MPI_GRAPH) {
    const int r = comm_rank(c);
    n.in.assign(t->edges.begin() + (r == 0 ? 0 : t->index[r - 1]), t->edges.begin() + t->index[r]);
    n.out = n.in;
  } else if (t != nullptr && t->kind == MPI_DIST_GRAPH) {
    n.in = t->sources;
    n.out = t->dests;
  } else {
    fail(MPI_ERR_TOPOLOGY, "a neighbourhood collective needs a communicator with a topology");
  }
  return n;
}

MPI_Comm shadow(MPI_Comm c) {
  Topo& t = topos()[c];
  if (t.kind == MPI_UNDEFINED) t.kind = MPI_CART;  // a Cartesian communicator's first neighbourhood call
  if (t.shadow == MPI_COMM_NULL) {
    MGEN_Comm h = MGEN_COMM_NULL;
    MGEN_Comm_dup(comm(c), &h);
    t.shadow = to_mpi_comm(h);
  }
  return t.shadow;
}

void forget_topology(MPI_Comm c) {
  auto& t = topos();
  auto it = t.find(c);
  if (it == t.end()) return;
  if (it->second.shadow != MPI_COMM_NULL) {
    MGEN_Comm h = comm(it->second.shadow);
    MGEN_Comm_free(&h);
  }
  t.erase(it);
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return call("MPI_Dims_create", MPI_COMM_WORLD, [&] {
    if (ndims < 0) fail(MPI_ERR_DIMS, fmt::format("negative number of dimensions {}", ndims));
    if (nnodes < 0) fail(MPI_ERR_ARG, fmt::format("negative number of nodes {}", nnodes));
    if (ndims > 0 && dims == nullptr) fail(MPI_ERR_ARG, "null dims");
    int64_t fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; ++i) {
      if (dims[i] < 0) fail(MPI_ERR_DIMS, fmt::format("dims[{}] is negative ({})", i, dims[i]));
      if (dims[i] == 0) {
        ++free_dims;
      } else {
        fixed *= dims[i];
      }
    }
    // No nodes: the free dimensions are 0 (MPICH 4.0.2 hangs when every dimension is free).
    if (nnodes == 0) return MPI_SUCCESS;
    if (nnodes % fixed != 0 || (free_dims == 0 && fixed != nnodes)) {
      fail(MPI_ERR_DIMS, fmt::format("{} nodes cannot fill dimensions whose set sizes multiply to {}", nnodes, fixed));
    }
    if (free_dims == 0) return MPI_SUCCESS;
    const std::vector<int> f = balanced_factors(static_cast<int>(nnodes / fixed), free_dims);
    size_t next = 0;
    for (int i = 0; i < ndims; ++i)
      if (dims[i] == 0) dims[i] = f[next++];
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Dims_create)

int PMPI_Cart_create(MPI_Comm c, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* out) {
  return call("MPI_Cart_create", c, [&] {
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Cart_create(comm(c), ndims, dims, periods, reorder, &n);
    *out = to_mpi_comm(n);
    inherit_errhandler(c, *out);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_create)

int PMPI_Cart_coords(MPI_Comm c, int rank, int maxdims, int coords[]) {
  return call("MPI_Cart_coords", c, [&] {
    MGEN_Cart_coords(comm(c), rank, maxdims, coords);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_coords)

int PMPI_Cart_rank(MPI_Comm c, const int coords[], int* rank) {
  return call("MPI_Cart_rank", c, [&] {
    MGEN_Cart_rank(comm(c), coords, rank);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_rank)

int PMPI_Cart_shift(MPI_Comm c, int direction, int disp, int* source, int* dest) {
  return call("MPI_Cart_shift", c, [&] {
    MGEN_Cart_shift(comm(c), direction, disp, source, dest);
    if (*source == MGEN_PROC_NULL) *source = MPI_PROC_NULL;
    if (*dest == MGEN_PROC_NULL) *dest = MPI_PROC_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_shift)

int PMPI_Cart_get(MPI_Comm c, int maxdims, int dims[], int periods[], int coords[]) {
  return call("MPI_Cart_get", c, [&] {
    MGEN_Cart_get(comm(c), maxdims, dims, periods, coords);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_get)

int PMPI_Cartdim_get(MPI_Comm c, int* ndims) {
  return call("MPI_Cartdim_get", c, [&] {
    MGEN_Cartdim_get(comm(c), ndims);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cartdim_get)

int PMPI_Topo_test(MPI_Comm c, int* status) {
  return call("MPI_Topo_test", c, [&] {
    const Topo* t = topo_of(c);
    *status = is_cart(c) ? MPI_CART : t != nullptr ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Topo_test)

int PMPI_Cart_sub(MPI_Comm c, const int remain_dims[], MPI_Comm* out) {
  return call("MPI_Cart_sub", c, [&] {
    const MGEN_Comm h = comm(c);
    int nd = 0;
    MGEN_Cartdim_get(h, &nd);
    std::vector<int> dims(nd), periods(nd), coords(nd);
    MGEN_Cart_get(h, nd, dims.data(), periods.data(), coords.data());
    // Ranks that share the coordinates of the dropped dimensions form one sub-grid, ordered
    // by their coordinates in the kept ones (row-major, as MPI numbers Cartesian ranks).
    int color = 0, key = 0;
    std::vector<int> kd, kp;
    for (int i = 0; i < nd; ++i) {
      if (remain_dims[i]) {
        key = key * dims[i] + coords[i];
        kd.push_back(dims[i]);
        kp.push_back(periods[i]);
      } else {
        color = color * dims[i] + coords[i];
      }
    }
    // No dimension kept: a zero-dimensional grid (MPI-4.0 §8.5.7), which holds one process. As
    // MPICH does, rank 0 of `c` gets it and the others MPI_COMM_NULL.
    int rank = 0;
    MGEN_Comm_rank(h, &rank);
    if (kd.empty()) color = rank == 0 ? 0 : MGEN_UNDEFINED;
    MGEN_Comm split = MGEN_COMM_NULL;
    MGEN_Comm_split(h, color, key, &split);
    if (split == MGEN_COMM_NULL) {
      *out = MPI_COMM_NULL;
      return MPI_SUCCESS;
    }
    MGEN_Comm cart = MGEN_COMM_NULL;
    MGEN_Cart_create(split, static_cast<int>(kd.size()), kd.data(), kp.data(), 0, &cart);
    MGEN_Comm_free(&split);
    *out = to_mpi_comm(cart);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_sub)

int PMPI_Cart_map(MPI_Comm c, int ndims, const int dims[], const int[], int* newrank) {
  return call("MPI_Cart_map", c, [&] {
    if (ndims < 0) fail(MPI_ERR_DIMS, fmt::format("negative number of dimensions {}", ndims));
    int64_t n = 1;
    for (int i = 0; i < ndims; ++i) {
      if (dims[i] <= 0) fail(MPI_ERR_DIMS, fmt::format("dims[{}] is {}", i, dims[i]));
      n *= dims[i];
    }
    if (n > comm_size(c)) fail(MPI_ERR_DIMS, fmt::format("a grid of {} ranks on {} processes", n, comm_size(c)));
    const int r = comm_rank(c);
    *newrank = r < n ? r : MPI_UNDEFINED;  // no reordering: rank i keeps place i
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cart_map)

namespace {

void check_graph(MPI_Comm c, int nnodes, const int index[], const int edges[]) {
  if (nnodes < 0) fail(MPI_ERR_ARG, fmt::format("negative number of nodes {}", nnodes));
  if (nnodes > comm_size(c)) {
    fail(MPI_ERR_ARG, fmt::format("a graph of {} nodes on {} processes", nnodes, comm_size(c)));
  }
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev) fail(MPI_ERR_ARG, fmt::format("index[{}] = {} decreases", i, index[i]));
    prev = index[i];
  }
  for (int e = 0; e < (nnodes > 0 ? index[nnodes - 1] : 0); ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      fail(MPI_ERR_ARG, fmt::format("edges[{}] = {} is not a node of the graph (0..{})", e, edges[e], nnodes - 1));
    }
  }
}

}  // namespace

int PMPI_Graph_map(MPI_Comm c, int nnodes, const int index[], const int edges[], int* newrank) {
  return call("MPI_Graph_map", c, [&] {
    check_graph(c, nnodes, index, edges);
    const int r = comm_rank(c);
    *newrank = r < nnodes ? r : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Graph_map)

int PMPI_Graph_create(MPI_Comm c, int nnodes, const int index[], const int edges[], int, MPI_Comm* out) {
  return call("MPI_Graph_create", c, [&] {
    check_graph(c, nnodes, index, edges);
    const int r = comm_rank(c);
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Comm_split(comm(c), r < nnodes ? 0 : MGEN_UNDEFINED, r, &n);
    *out = to_mpi_comm(n);
    inherit_errhandler(c, *out);
    if (*out == MPI_COMM_NULL) return MPI_SUCCESS;
    Topo& t = topos()[*out];
    t = Topo{};
    t.kind = MPI_GRAPH;
    t.index.assign(index, index + nnodes);
    t.edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm c, int* nnodes, int* nedges) {
  return call("MPI_Graphdims_get", c, [&] {
    const Topo& t = need(c, MPI_GRAPH, "graph");
    *nnodes = static_cast<int>(t.index.size());
    *nedges = static_cast<int>(t.edges.size());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Graphdims_get)

int PMPI_Graph_get(MPI_Comm c, int maxindex, int maxedges, int index[], int edges[]) {
  return call("MPI_Graph_get", c, [&] {
    const Topo& t = need(c, MPI_GRAPH, "graph");
    std::copy_n(t.index.begin(), std::min<size_t>(t.index.size(), std::max(maxindex, 0)), index);
    std::copy_n(t.edges.begin(), std::min<size_t>(t.edges.size(), std::max(maxedges, 0)), edges);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm c, int rank, int* n) {
  return call("MPI_Graph_neighbors_count", c, [&] {
    const Topo& t = need(c, MPI_GRAPH, "graph");
    if (rank < 0 || rank >= static_cast<int>(t.index.size())) fail(MPI_ERR_RANK, fmt::format("rank {}", rank));
    *n = t.index[rank] - (rank == 0 ? 0 : t.index[rank - 1]);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm c, int rank, int maxneighbors, int neighbors[]) {
  return call("MPI_Graph_neighbors", c, [&] {
    const Topo& t = need(c, MPI_GRAPH, "graph");
    if (rank < 0 || rank >= static_cast<int>(t.index.size())) fail(MPI_ERR_RANK, fmt::format("rank {}", rank));
    const int first = rank == 0 ? 0 : t.index[rank - 1];
    const int n = std::min(t.index[rank] - first, std::max(maxneighbors, 0));
    std::copy_n(t.edges.begin() + first, n, neighbors);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Graph_neighbors)

namespace {

bool weighted_list(const int* w) {
  return w != MPI_UNWEIGHTED;
}

void check_peers(MPI_Comm c, int n, const int* ranks, const char* what) {
  const int size = comm_size(c);
  if (n < 0) fail(MPI_ERR_ARG, fmt::format("negative {} degree {}", what, n));
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) fail(MPI_ERR_RANK, fmt::format("{}[{}] = {}", what, i, ranks[i]));
  }
}

// A duplicate of `c` carrying a distributed-graph topology.
MPI_Comm new_dist_graph(MPI_Comm c, Topo t) {
  MGEN_Comm n = MGEN_COMM_NULL;
  MGEN_Comm_dup(comm(c), &n);
  const MPI_Comm out = to_mpi_comm(n);
  inherit_errhandler(c, out);
  t.kind = MPI_DIST_GRAPH;
  topos()[out] = std::move(t);
  return out;
}

}  // namespace

int PMPI_Dist_graph_create_adjacent(MPI_Comm c, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info, int,
                                    MPI_Comm* out) {
  return call("MPI_Dist_graph_create_adjacent", c, [&] {
    check_peers(c, indegree, sources, "sources");
    check_peers(c, outdegree, destinations, "destinations");
    Topo t;
    t.weighted = weighted_list(sourceweights) && weighted_list(destweights);
    t.sources.assign(sources, sources + indegree);
    t.dests.assign(destinations, destinations + outdegree);
    if (t.weighted) {
      if (sourceweights != MPI_WEIGHTS_EMPTY) t.sweights.assign(sourceweights, sourceweights + indegree);
      if (destweights != MPI_WEIGHTS_EMPTY) t.dweights.assign(destweights, destweights + outdegree);
      t.sweights.resize(indegree, 0);
      t.dweights.resize(outdegree, 0);
    }
    *out = new_dist_graph(c, std::move(t));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Dist_graph_create_adjacent)

int PMPI_Dist_graph_create(MPI_Comm c, int n, const int sources[], const int degrees[], const int destinations[],
                           const int weights[], MPI_Info, int, MPI_Comm* out) {
  return call("MPI_Dist_graph_create", c, [&] {
    if (n < 0) fail(MPI_ERR_ARG, fmt::format("negative number of sources {}", n));
    check_peers(c, n, sources, "sources");
    const int size = comm_size(c);
    const bool weighted = weighted_list(weights);
    // Every edge s -> d goes to s (as an out-edge) and to d (as an in-edge): triples
    // (in? 1 : 0, peer, weight), exchanged with one all-to-all.
    std::vector<std::vector<int>> to(size);
    for (int i = 0, k = 0; i < n; ++i) {
      if (degrees[i] < 0) fail(MPI_ERR_ARG, fmt::format("degrees[{}] = {}", i, degrees[i]));
      for (int j = 0; j < degrees[i]; ++j, ++k) {
        const int s = sources[i], d = destinations[k], w = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[k] : 0;
        if (d < 0 || d >= size) fail(MPI_ERR_RANK, fmt::format("destinations[{}] = {}", k, d));
        to[s].insert(to[s].end(), {0, d, w});
        to[d].insert(to[d].end(), {1, s, w});
      }
    }
    std::vector<int> scounts(size), rcounts(size), sdispls(size), rdispls(size);
    std::vector<int> sbuf;
    for (int r = 0; r < size; ++r) {
      scounts[r] = static_cast<int>(to[r].size());
      sdispls[r] = static_cast<int>(sbuf.size());
      sbuf.insert(sbuf.end(), to[r].begin(), to[r].end());
    }
    PMPI_Alltoall(scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, c);
    std::exclusive_scan(rcounts.begin(), rcounts.end(), rdispls.begin(), 0);
    std::vector<int> rbuf(static_cast<size_t>(rdispls.back() + rcounts.back()));
    PMPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_INT, rbuf.data(), rcounts.data(), rdispls.data(),
                   MPI_INT, c);
    int any_weighted = weighted ? 1 : 0;
    PMPI_Allreduce(MPI_IN_PLACE, &any_weighted, 1, MPI_INT, MPI_LOR, c);
    Topo t;
    t.weighted = any_weighted != 0;
    for (size_t i = 0; i + 2 < rbuf.size(); i += 3) {
      if (rbuf[i] == 1) {
        t.sources.push_back(rbuf[i + 1]);
        t.sweights.push_back(rbuf[i + 2]);
      } else {
        t.dests.push_back(rbuf[i + 1]);
        t.dweights.push_back(rbuf[i + 2]);
      }
    }
    if (!t.weighted) {
      t.sweights.clear();
      t.dweights.clear();
    }
    *out = new_dist_graph(c, std::move(t));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm c, int* indegree, int* outdegree, int* weighted) {
  return call("MPI_Dist_graph_neighbors_count", c, [&] {
    const Topo& t = need(c, MPI_DIST_GRAPH, "distributed graph");
    *indegree = static_cast<int>(t.sources.size());
    *outdegree = static_cast<int>(t.dests.size());
    *weighted = t.weighted ? 1 : 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm c, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[]) {
  return call("MPI_Dist_graph_neighbors", c, [&] {
    const Topo& t = need(c, MPI_DIST_GRAPH, "distributed graph");
    const size_t nin = std::min<size_t>(t.sources.size(), std::max(maxindegree, 0));
    const size_t nout = std::min<size_t>(t.dests.size(), std::max(maxoutdegree, 0));
    std::copy_n(t.sources.begin(), nin, sources);
    std::copy_n(t.dests.begin(), nout, destinations);
    if (t.weighted && weighted_list(sourceweights) && sourceweights != MPI_WEIGHTS_EMPTY) {
      std::copy_n(t.sweights.begin(), nin, sourceweights);
    }
    if (t.weighted && weighted_list(destweights) && destweights != MPI_WEIGHTS_EMPTY) {
      std::copy_n(t.dweights.begin(), nout, destweights);
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Dist_graph_neighbors)

}  // extern "C"
