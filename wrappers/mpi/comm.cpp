// Communicators and groups (topologies: topo.cpp; attributes: attr.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/diagnostics.hpp"
#include "mpi/attr.hpp"
#include "mpi/info.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

// World ranks of a group's members, in group order.
std::vector<int> members(MGEN_Group g) {
  int n = 0;
  MGEN_Group_size(g, &n);
  std::vector<int> idx(n), out(n);
  std::iota(idx.begin(), idx.end(), 0);
  MGEN_Group world = MGEN_GROUP_NULL;
  MGEN_Comm_group(MGEN_COMM_WORLD, &world);
  if (n > 0) MGEN_Group_translate_ranks(g, n, idx.data(), world, out.data());
  MGEN_Group_free(&world);
  return out;
}

// A group from world ranks.
MPI_Group from_members(const std::vector<int>& m) {
  MGEN_Group world = MGEN_GROUP_NULL, g = MGEN_GROUP_NULL;
  MGEN_Comm_group(MGEN_COMM_WORLD, &world);
  MGEN_Group_incl(world, static_cast<int>(m.size()), m.data(), &g);
  MGEN_Group_free(&world);
  return to_mpi_group(g);
}

int compare_members(const std::vector<int>& a, const std::vector<int>& b) {
  if (a == b) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  std::vector<int> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

std::vector<int> comm_members(MGEN_Comm h) {
  MGEN_Group g = MGEN_GROUP_NULL;
  MGEN_Comm_group(h, &g);
  std::vector<int> m = members(g);
  MGEN_Group_free(&g);
  return m;
}

}  // namespace

extern "C" {

int PMPI_Comm_rank(MPI_Comm c, int* rank) {
  return call("MPI_Comm_rank", c, [&] {
    MGEN_Comm_rank(comm(c), rank);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm c, int* size) {
  return call("MPI_Comm_size", c, [&] {
    MGEN_Comm_size(comm(c), size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_size)

int PMPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* newcomm) {
  return call("MPI_Comm_split", c, [&] {
    if (color < 0 && color != MPI_UNDEFINED) fail(MPI_ERR_ARG, fmt::format("negative color {}", color));
    if (is_inter(c)) {
      inter_split(c, color, key, newcomm);
      return MPI_SUCCESS;
    }
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Comm_split(comm(c), color == MPI_UNDEFINED ? MGEN_UNDEFINED : color, key, &n);
    *newcomm = to_mpi_comm(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_split)

int PMPI_Comm_split_type(MPI_Comm c, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return call("MPI_Comm_split_type", c, [&] {
    const MGEN_Comm h = comm(c);
    const int node = static_cast<int>(scope().rank().node);
    switch (split_type) {
      case MPI_UNDEFINED:
        return PMPI_Comm_split(c, MPI_UNDEFINED, key, newcomm);
      case MPI_COMM_TYPE_SHARED:
        return PMPI_Comm_split(c, node, key, newcomm);
      case MPIX_COMM_TYPE_NEIGHBORHOOD:
        // MPICH's extension splits by shared file systems or network hints; mgen models
        // neither, and MPICH too answers MPI_COMM_NULL to hints it cannot honour.
        return PMPI_Comm_split(c, MPI_UNDEFINED, key, newcomm);
      case MPI_COMM_TYPE_HW_GUIDED:
        // The only hardware level mgen models is the node, and the info hints that would name
        // it are not kept: as MPI says for an unrecognised resource type, MPI_COMM_NULL.
        return PMPI_Comm_split(c, MPI_UNDEFINED, key, newcomm);
      case MPI_COMM_TYPE_HW_UNGUIDED: {
        // A strictly smaller hardware domain: the node, unless the node holds the whole
        // communicator (then there is none: MPI_COMM_NULL).
        MPI_Comm sub = MPI_COMM_NULL;
        const int rc = PMPI_Comm_split(c, node, key, &sub);
        if (rc != MPI_SUCCESS) return rc;
        int n = 0, all = 0;
        PMPI_Comm_size(sub, &n);
        MGEN_Comm_size(h, &all);
        if (n == all) PMPI_Comm_free(&sub);
        // MPI-4.0 §7.4.2: the info names the resource type that was split on (hwloc's name).
        if (sub != MPI_COMM_NULL && info != MPI_INFO_NULL) PMPI_Info_set(info, "mpi_hw_resource_type", "Machine");
        *newcomm = sub;
        return MPI_SUCCESS;
      }
      default:
        fail(MPI_ERR_ARG,
             fmt::format("split type {} (mgen knows MPI_COMM_TYPE_SHARED, _HW_GUIDED and _HW_UNGUIDED)", split_type));
    }
  });
}
MGEN_MPI_ALIAS(Comm_split_type)

int PMPI_Comm_dup(MPI_Comm c, MPI_Comm* newcomm) {
  return call("MPI_Comm_dup", c, [&] {
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Comm_dup(comm(c), &n);
    *newcomm = to_mpi_comm(n);
    copy_attrs_or_free(c, newcomm);
    auto it = state().comm_errhandler.find(c);
    if (it != state().comm_errhandler.end()) state().comm_errhandler[*newcomm] = it->second;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm c, MPI_Info info, MPI_Comm* newcomm) {
  return call("MPI_Comm_dup_with_info", c, [&] {
    info_keys(info);  // validates
    PMPI_Comm_dup(c, newcomm);
    comm_hints_set(*newcomm, info);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_dup_with_info)

// The duplicate exists at once (its context is derived without communication, as MPI_Comm_dup
// derives it); the request is a non-blocking barrier on it, the cost of MPICH's context
// agreement, so ranks may start idups of different communicators in different orders.
int PMPI_Comm_idup(MPI_Comm c, MPI_Comm* newcomm, MPI_Request* req) {
  return call("MPI_Comm_idup", c, [&] {
    if (req == nullptr) fail(MPI_ERR_ARG, "the request is null");
    *newcomm = dup_now(c);
    copy_attrs_or_free(c, newcomm);
    auto it = state().comm_errhandler.find(c);
    if (it != state().comm_errhandler.end()) state().comm_errhandler[*newcomm] = it->second;
    if (is_inter(c)) {
      completed_request(req);
      return MPI_SUCCESS;
    }
    return PMPI_Ibarrier(*newcomm, req);
  });
}
MGEN_MPI_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm c, MPI_Info info, MPI_Comm* newcomm, MPI_Request* req) {
  return call("MPI_Comm_idup_with_info", c, [&] {
    info_keys(info);  // validates
    const int rc = PMPI_Comm_idup(c, newcomm, req);
    comm_hints_set(*newcomm, info);
    return rc;
  });
}
MGEN_MPI_ALIAS(Comm_idup_with_info)

int PMPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* newcomm) {
  return call("MPI_Comm_create_group", c, [&] {
    create_group(c, g, tag, newcomm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_create_group)

// Hints: kept and reported as MPICH does (the keys it knows, info.cpp); none changes the model.
int PMPI_Comm_set_info(MPI_Comm c, MPI_Info info) {
  return call("MPI_Comm_set_info", c, [&] {
    comm(c);
    comm_hints_set(c, info);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm c, MPI_Info* info) {
  return call("MPI_Comm_get_info", c, [&] {
    comm(c);
    if (info == nullptr) fail(MPI_ERR_ARG, "null info pointer");
    *info = comm_hints_get(c);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_get_info)

int PMPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm* newcomm) {
  return call("MPI_Comm_create", c, [&] {
    if (is_inter(c)) {
      inter_create(c, g, newcomm);
      return MPI_SUCCESS;
    }
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Comm_create(comm(c), group(g), &n);
    *newcomm = to_mpi_comm(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_create)

int PMPI_Comm_free(MPI_Comm* c) {
  return call("MPI_Comm_free", *c, [&] {
    if (*c == MPI_COMM_WORLD || *c == MPI_COMM_SELF) fail(MPI_ERR_COMM, "cannot free MPI_COMM_WORLD or MPI_COMM_SELF");
    MGEN_Comm h = comm(*c);
    delete_attrs(*c);
    forget_inter(*c);
    state().comm_errhandler.erase(*c);
    state().comm_names.erase(*c);
    state().nbc_seq.erase(*c);
    comm_hints_forget(*c);
    MGEN_Comm_free(&h);
    *c = MPI_COMM_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_free)

int PMPI_Comm_disconnect(MPI_Comm* c) {
  return PMPI_Comm_free(c);
}
MGEN_MPI_ALIAS(Comm_disconnect)

int PMPI_Comm_compare(MPI_Comm a, MPI_Comm b, int* result) {
  return call("MPI_Comm_compare", a, [&] {
    if (a == b) {
      comm(a);
      *result = MPI_IDENT;
      return MPI_SUCCESS;
    }
    if (is_inter(a) || is_inter(b)) {
      *result = inter_compare(a, b);
      return MPI_SUCCESS;
    }
    const int r = compare_members(comm_members(comm(a)), comm_members(comm(b)));
    *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm c, int* flag) {
  return call("MPI_Comm_test_inter", c, [&] {
    MGEN_Comm_test_inter(comm(c), flag);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_test_inter)

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  return call("MPI_Intercomm_create", local_comm, [&] {
    // peer_comm matters at the local leader only; the others may pass anything.
    const MGEN_Comm peer = peer_comm == MPI_COMM_NULL ? MGEN_COMM_NULL : comm(peer_comm);
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Intercomm_create(comm(local_comm), local_leader, peer, remote_leader, tag, &n);
    *newintercomm = to_mpi_comm(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Intercomm_create)

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char* stringtag, MPI_Info, MPI_Errhandler errhandler,
                                      MPI_Comm* newintercomm) {
  return call("MPI_Intercomm_create_from_groups", MPI_COMM_WORLD, [&] {
    intercomm_from_groups(local_group, local_leader, remote_group, remote_leader, stringtag, newintercomm);
    return PMPI_Comm_set_errhandler(*newintercomm, errhandler);
  });
}
MGEN_MPI_ALIAS(Intercomm_create_from_groups)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  return call("MPI_Intercomm_merge", intercomm, [&] {
    MGEN_Comm n = MGEN_COMM_NULL;
    MGEN_Intercomm_merge(comm(intercomm), high, &n);
    *newintracomm = to_mpi_comm(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Intercomm_merge)

int PMPI_Comm_remote_size(MPI_Comm c, int* size) {
  return call("MPI_Comm_remote_size", c, [&] {
    MGEN_Comm_remote_size(comm(c), size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm c, MPI_Group* g) {
  return call("MPI_Comm_remote_group", c, [&] {
    MGEN_Group h = MGEN_GROUP_NULL;
    MGEN_Comm_remote_group(comm(c), &h);
    *g = to_mpi_group(h);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_remote_group)

int PMPI_Comm_group(MPI_Comm c, MPI_Group* g) {
  return call("MPI_Comm_group", c, [&] {
    MGEN_Group h = MGEN_GROUP_NULL;
    MGEN_Comm_group(comm(c), &h);
    *g = to_mpi_group(h);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_group)

int PMPI_Comm_set_name(MPI_Comm c, const char* name) {
  return call("MPI_Comm_set_name", c, [&] {
    const MGEN_Comm h = comm(c);
    if (name == nullptr) fail(MPI_ERR_ARG, "null name");
    std::string& n = state().comm_names[c] = std::string(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
    // Deadlock and mismatch reports name the communicator so too.
    World& w = *World::active();
    name_comm(w, w.current().id, w.current().comms[h]->context, n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm c, char* name, int* len) {
  return call("MPI_Comm_get_name", c, [&] {
    comm(c);
    const auto& names = state().comm_names;
    const auto it = names.find(c);
    const char* n = it != names.end()     ? it->second.c_str()
                    : c == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                    : c == MPI_COMM_SELF  ? "MPI_COMM_SELF"
                                          : "";
    std::snprintf(name, MPI_MAX_OBJECT_NAME, "%s", n);
    *len = static_cast<int>(std::strlen(name));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_get_name)

int PMPI_Group_size(MPI_Group g, int* size) {
  return call("MPI_Group_size", MPI_COMM_WORLD, [&] {
    MGEN_Group_size(group(g), size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group g, int* rank) {
  return call("MPI_Group_rank", MPI_COMM_WORLD, [&] {
    MGEN_Group_rank(group(g), rank);
    if (*rank == MGEN_UNDEFINED) *rank = MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Group_rank)

namespace {

// MPI_Group_incl and _excl, and their range forms: the MGEN call on an explicit rank list.
using GroupSelect = int (*)(MGEN_Group, int, const int*, MGEN_Group*);
int select_ranks(MPI_Group g, int n, const int* ranks, GroupSelect select, MPI_Group* out) {
  MGEN_Group h = MGEN_GROUP_NULL;
  select(group(g), n, ranks, &h);
  *out = to_mpi_group(h);
  return MPI_SUCCESS;
}

// Every rank of `n` (first, last, stride) triplets, in order.
std::vector<int> expand_ranges(int n, int ranges[][3]) {
  std::vector<int> list;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) fail(MPI_ERR_ARG, "zero stride in a rank range");
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride)
      list.push_back(r);
  }
  return list;
}

// Union, intersection, difference: a's members filtered by membership in b (in a's order),
// then, for the union, b's members not in a.
int combine(MPI_Group a, MPI_Group b, bool keep_if_in_b, bool append_b, MPI_Group* out) {
  const std::vector<int> mb = members(group(b));
  std::vector<int> m;
  for (int w : members(group(a))) {
    if (append_b || (std::find(mb.begin(), mb.end(), w) != mb.end()) == keep_if_in_b) m.push_back(w);
  }
  if (append_b) {
    for (int w : mb) {
      if (std::find(m.begin(), m.end(), w) == m.end()) m.push_back(w);
    }
  }
  *out = from_members(m);
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Group_incl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  return call("MPI_Group_incl", MPI_COMM_WORLD, [&] { return select_ranks(g, n, ranks, MGEN_Group_incl, out); });
}
MGEN_MPI_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  return call("MPI_Group_excl", MPI_COMM_WORLD, [&] { return select_ranks(g, n, ranks, MGEN_Group_excl, out); });
}
MGEN_MPI_ALIAS(Group_excl)

int PMPI_Group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  return call("MPI_Group_range_incl", MPI_COMM_WORLD, [&] {
    const std::vector<int> list = expand_ranges(n, ranges);
    return select_ranks(g, static_cast<int>(list.size()), list.data(), MGEN_Group_incl, out);
  });
}
MGEN_MPI_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  return call("MPI_Group_range_excl", MPI_COMM_WORLD, [&] {
    const std::vector<int> list = expand_ranges(n, ranges);
    return select_ranks(g, static_cast<int>(list.size()), list.data(), MGEN_Group_excl, out);
  });
}
MGEN_MPI_ALIAS(Group_range_excl)

int PMPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return call("MPI_Group_union", MPI_COMM_WORLD, [&] { return combine(a, b, true, true, out); });
}
MGEN_MPI_ALIAS(Group_union)

int PMPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return call("MPI_Group_intersection", MPI_COMM_WORLD, [&] { return combine(a, b, true, false, out); });
}
MGEN_MPI_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return call("MPI_Group_difference", MPI_COMM_WORLD, [&] { return combine(a, b, false, false, out); });
}
MGEN_MPI_ALIAS(Group_difference)

int PMPI_Group_compare(MPI_Group a, MPI_Group b, int* result) {
  return call("MPI_Group_compare", MPI_COMM_WORLD, [&] {
    *result = compare_members(members(group(a)), members(group(b)));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Group_compare)

int PMPI_Group_translate_ranks(MPI_Group a, int n, const int ranks[], MPI_Group b, int out[]) {
  return call("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&] {
    std::vector<int> in(ranks, ranks + n);
    for (int& r : in) {
      if (r == MPI_PROC_NULL) r = MGEN_PROC_NULL;
    }
    MGEN_Group_translate_ranks(group(a), n, in.data(), group(b), out);
    for (int i = 0; i < n; ++i) {
      if (out[i] == MGEN_UNDEFINED) out[i] = MPI_UNDEFINED;
      if (out[i] == MGEN_PROC_NULL) out[i] = MPI_PROC_NULL;
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Group_translate_ranks)

int PMPI_Group_free(MPI_Group* g) {
  return call("MPI_Group_free", MPI_COMM_WORLD, [&] {
    MGEN_Group h = group(*g);
    if (h != MGEN_GROUP_EMPTY) MGEN_Group_free(&h);
    *g = MPI_GROUP_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Group_free)

}  // extern "C"
