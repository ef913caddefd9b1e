// Every collective algorithm's entry point: the registries in select.cpp list them, and an
// algorithm that cannot serve a call (a "v" form, a size it does not support) hands it to
// another one declared here.
#pragma once

#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void barrier_dissemination(Channel&);
void barrier_recursive_doubling(Channel&);
void barrier_ring(Channel&);
void barrier_linear(Channel&);
void barrier_tree(Channel&);

void bcast_binomial(Channel&, void* buf, uint64_t bytes, int root);
void bcast_scatter_allgather(Channel&, void* buf, uint64_t bytes, int root);
void bcast_scatter_rd_allgather(Channel&, void* buf, uint64_t bytes, int root);
void bcast_linear(Channel&, void* buf, uint64_t bytes, int root);
void bcast_chain(Channel&, void* buf, uint64_t bytes, int root);
void bcast_binary(Channel&, void* buf, uint64_t bytes, int root);
void bcast_knomial(Channel&, void* buf, uint64_t bytes, int root);

void reduce_binomial(Channel&, const ReduceArgs&);
void reduce_linear(Channel&, const ReduceArgs&);
void reduce_rabenseifner(Channel&, const ReduceArgs&);
void reduce_chain(Channel&, const ReduceArgs&);
void reduce_binary(Channel&, const ReduceArgs&);
void reduce_in_order_binary(Channel&, const ReduceArgs&);

void allreduce_recursive_doubling(Channel&, const ReduceArgs&);
void allreduce_rabenseifner(Channel&, const ReduceArgs&);
void allreduce_ring(Channel&, const ReduceArgs&);
void allreduce_binomial(Channel&, const ReduceArgs&);
void allreduce_linear(Channel&, const ReduceArgs&);
void allreduce_nonoverlapping(Channel&, const ReduceArgs&);

void gather_binomial(Channel&, const BlockArgs&);
void gather_linear(Channel&, const BlockArgs&);
void gather_linear_sync(Channel&, const BlockArgs&);
void scatter_binomial(Channel&, const BlockArgs&);
void scatter_linear(Channel&, const BlockArgs&);

void allgather_ring(Channel&, const BlockArgs&);
void allgather_recursive_doubling(Channel&, const BlockArgs&);
void allgather_bruck(Channel&, const BlockArgs&);
void allgather_neighbor_exchange(Channel&, const BlockArgs&);
void allgather_gather_bcast(Channel&, const BlockArgs&);

void alltoall_pairwise(Channel&, const BlockArgs&);
void alltoall_bruck(Channel&, const BlockArgs&);
void alltoall_linear(Channel&, const BlockArgs&);
void alltoall_scattered(Channel&, const BlockArgs&);
void alltoall_pairwise_shift(Channel&, const BlockArgs&);

void reduce_scatter_recursive_halving(Channel&, const ReduceScatterArgs&);
void reduce_scatter_ring(Channel&, const ReduceScatterArgs&);
void reduce_scatter_pairwise(Channel&, const ReduceScatterArgs&);
void reduce_scatter_reduce_scatterv(Channel&, const ReduceScatterArgs&);
void reduce_scatter_butterfly(Channel&, const ReduceScatterArgs&);

void scan_recursive_doubling(Channel&, const ReduceArgs&);
void scan_linear(Channel&, const ReduceArgs&);
void exscan_recursive_doubling(Channel&, const ReduceArgs&);
void exscan_linear(Channel&, const ReduceArgs&);

// Dimemas's collective model (dimemas.cpp): one step at the engine, timed by Table 3's rows.
void barrier_dimemas(Channel&);
void bcast_dimemas(Channel&, void* buf, uint64_t bytes, int root);
void reduce_dimemas(Channel&, const ReduceArgs&);
void allreduce_dimemas(Channel&, const ReduceArgs&);
void scan_dimemas(Channel&, const ReduceArgs&);
void exscan_dimemas(Channel&, const ReduceArgs&);
void gather_dimemas(Channel&, const BlockArgs&);
void scatter_dimemas(Channel&, const BlockArgs&);
void allgather_dimemas(Channel&, const BlockArgs&);
void alltoall_dimemas(Channel&, const BlockArgs&);
void reduce_scatter_dimemas(Channel&, const ReduceScatterArgs&);

}  // namespace mgen::mpi::colls
