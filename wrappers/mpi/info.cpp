// MPI info objects (MPI-4.0 §10): ordered (key, value) lists per rank, with MPI's length limits
// and error classes, and the hints communicators and windows report (MPICH 4.0.2's keys and
// defaults, so a program that prints or checks them sees what it sees under MPICH).
#include "mpi/info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

constexpr uint32_t kInfoKind = 0x9c000000u;  // MPICH's kind bits for an info object
constexpr uint32_t kInfoMask = 0xfc000000u;

struct Infos : World::Extension {
  explicit Infos(World& w) : ranks(w.size()) {}
  struct Rank {
    std::vector<std::optional<InfoKeys>> infos;  // by index; nullopt: free
    std::unordered_map<MPI_Comm, InfoKeys> comm_hints;
    std::unordered_map<MPI_Win, InfoKeys> win_hints;
  };
  std::vector<Rank> ranks;
};
const char kInfosKey = 0;

Infos::Rank& mine() {
  return scope().world().extension<Infos>(&kInfosKey).ranks[scope().rank().id];
}

const InfoKeys kNoKeys;

InfoKeys& keys_of(MPI_Info info) {
  const uint32_t i = static_cast<uint32_t>(info) & ~kInfoMask;
  auto& v = mine().infos;
  if ((static_cast<uint32_t>(info) & kInfoMask) != kInfoKind || i >= v.size() || !v[i]) {
    fail(MPI_ERR_INFO, info == MPI_INFO_NULL ? "MPI_INFO_NULL" : fmt::format("invalid info object {:#x}", info));
  }
  return *v[i];
}

void check_key(const char* key) {
  if (key == nullptr) fail(MPI_ERR_INFO_KEY, "null info key");
  const size_t n = std::strlen(key);
  if (n == 0) fail(MPI_ERR_INFO_KEY, "empty info key");
  if (n > MPI_MAX_INFO_KEY)
    fail(MPI_ERR_INFO_KEY, fmt::format("info key of {} characters (at most {})", n, MPI_MAX_INFO_KEY));
}

InfoKeys::iterator find(InfoKeys& keys, const std::string& key) {
  return std::find_if(keys.begin(), keys.end(), [&](const auto& kv) { return kv.first == key; });
}

void set(InfoKeys& keys, const std::string& key, const std::string& value) {
  auto it = find(keys, key);
  if (it != keys.end()) {
    it->second = value;
  } else {
    keys.emplace_back(key, value);
  }
}

// Copies `value` into (out, room): at most `room` characters and a terminating NUL.
void copy_out(const std::string& value, int room, char* out) {
  const size_t n = std::min<size_t>(value.size(), static_cast<size_t>(std::max(room, 0)));
  std::memcpy(out, value.data(), n);
  out[n] = '\0';
}

// MPICH 4.0.2's communicator hints and defaults (MPI_Comm_get_info on a new communicator).
const InfoKeys& comm_defaults() {
  static const InfoKeys d = {
      {"mpi_assert_no_any_tag", "false"},
      {"mpi_assert_no_any_source", "false"},
      {"mpi_assert_exact_length", "false"},
      {"mpi_assert_allow_overtaking", "false"},
      {"enable_multi_nic_striping", "true"},
      {"enable_multi_nic_hashing", "true"},
      {"multi_nic_pref_nic", "-1"},
      {"sender_vci", "-1"},
      {"receiver_vci", "-1"},
      {"vci", "-1"},
  };
  return d;
}

// MPICH 4.0.2's window hints for MPI_Win_create (MPI_Win_get_info).
const InfoKeys& win_defaults() {
  static const std::string ops = "cswap,max,min,sum,prod,land,band,lor,bor,lxor,bxor,minloc,maxloc,replace,no_op";
  static const InfoKeys d = {
      {"no_locks", "false"},
      {"accumulate_ordering", "rar,raw,war,waw"},
      {"accumulate_ops", "same_op_no_op"},
      {"alloc_shared_noncontig", "false"},
      {"same_size", "false"},
      {"same_disp_unit", "false"},
      {"alloc_shm", "false"},
      {"which_accumulate_ops", ops},
      {"accumulate_noncontig_dtype", "true"},
      {"accumulate_max_bytes", "unlimited"},
      {"disable_shm_accumulate", "false"},
      {"coll_attach", "false"},
      {"perf_preference", ops},
  };
  return d;
}

// Takes the recognised keys of `info` into `hints` (starting from `defaults` if empty).
void apply(InfoKeys& hints, const InfoKeys& defaults, MPI_Info info) {
  if (hints.empty()) hints = defaults;
  if (info == MPI_INFO_NULL) return;
  for (const auto& [k, v] : info_keys(info)) {
    auto it = find(hints, k);
    if (it != hints.end()) it->second = v;
  }
}

}  // namespace

namespace mgen::mpi::abi {

const InfoKeys& info_keys(MPI_Info info) {
  if (info == MPI_INFO_NULL || info == MPI_INFO_ENV) return kNoKeys;
  return keys_of(info);
}

MPI_Info new_info(InfoKeys keys) {
  auto& v = mine().infos;
  auto it = std::find(v.begin(), v.end(), std::nullopt);
  const auto i = static_cast<uint32_t>(it - v.begin());
  if (it == v.end()) v.emplace_back();
  v[i] = std::move(keys);
  return static_cast<MPI_Info>(kInfoKind | i);
}

const std::string* info_value(MPI_Info info, const std::string& key) {
  for (const auto& [k, v] : info_keys(info)) {
    if (k == key) return &v;
  }
  return nullptr;
}

void comm_hints_set(MPI_Comm c, MPI_Info info) {
  apply(mine().comm_hints[c], comm_defaults(), info);
}

MPI_Info comm_hints_get(MPI_Comm c) {
  auto& h = mine().comm_hints;
  auto it = h.find(c);
  return new_info(it == h.end() ? comm_defaults() : it->second);
}

void comm_hints_forget(MPI_Comm c) {
  mine().comm_hints.erase(c);
}

void win_hints_create(MPI_Win w, MPI_Info info) {
  mine().win_hints.erase(w);
  win_hints_set(w, info);
}

void win_hints_set(MPI_Win w, MPI_Info info) {
  apply(mine().win_hints[w], win_defaults(), info);
}

MPI_Info win_hints_get(MPI_Win w) {
  auto& h = mine().win_hints;
  auto it = h.find(w);
  return new_info(it == h.end() ? win_defaults() : it->second);
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  return call("MPI_Info_create", MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, "null info pointer");
    *info = new_info({});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_create)

int PMPI_Info_create_env(int, char*[], MPI_Info* info) {
  return call("MPI_Info_create_env", MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, "null info pointer");
    *info = new_info({});  // as MPICH 4.0.2's MPI_INFO_ENV: no keys
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_create_env)

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  return call("MPI_Info_set", MPI_COMM_WORLD, [&] {
    InfoKeys& keys = keys_of(info);
    check_key(key);
    if (value == nullptr) fail(MPI_ERR_INFO_VALUE, "null info value");
    const size_t n = std::strlen(value);
    if (n > MPI_MAX_INFO_VAL) {
      fail(MPI_ERR_INFO_VALUE, fmt::format("info value of {} characters (at most {})", n, MPI_MAX_INFO_VAL));
    }
    set(keys, key, value);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_set)

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  return call("MPI_Info_get", MPI_COMM_WORLD, [&] {
    const InfoKeys& keys = info_keys(info);
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, "MPI_INFO_NULL");
    check_key(key);
    if (valuelen < 0) fail(MPI_ERR_ARG, fmt::format("negative value length {}", valuelen));
    *flag = 0;
    for (const auto& [k, v] : keys) {
      if (k != key) continue;
      *flag = 1;
      copy_out(v, valuelen, value);
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_get)

int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  return call("MPI_Info_get_string", MPI_COMM_WORLD, [&] {
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, "MPI_INFO_NULL");
    check_key(key);
    if (buflen == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "null argument");
    const std::string* v = info_value(info, key);
    *flag = v != nullptr;
    if (v == nullptr) return MPI_SUCCESS;
    // MPI-4.0 §10: at most buflen - 1 characters and a NUL; buflen becomes the value's size + 1.
    if (*buflen > 0 && value != nullptr) copy_out(*v, *buflen - 1, value);
    *buflen = static_cast<int>(v->size()) + 1;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  return call("MPI_Info_get_valuelen", MPI_COMM_WORLD, [&] {
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, "MPI_INFO_NULL");
    check_key(key);
    const std::string* v = info_value(info, key);
    *flag = v != nullptr;
    if (v != nullptr) *valuelen = static_cast<int>(v->size());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  return call("MPI_Info_get_nkeys", MPI_COMM_WORLD, [&] {
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, "MPI_INFO_NULL");
    *nkeys = static_cast<int>(info_keys(info).size());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  return call("MPI_Info_get_nthkey", MPI_COMM_WORLD, [&] {
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, "MPI_INFO_NULL");
    const InfoKeys& keys = info_keys(info);
    if (n < 0 || static_cast<size_t>(n) >= keys.size()) {
      fail(MPI_ERR_ARG, fmt::format("key number {} of an info object with {} keys", n, keys.size()));
    }
    std::strcpy(key, keys[static_cast<size_t>(n)].first.c_str());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_get_nthkey)

int PMPI_Info_delete(MPI_Info info, const char* key) {
  return call("MPI_Info_delete", MPI_COMM_WORLD, [&] {
    InfoKeys& keys = keys_of(info);
    check_key(key);
    auto it = find(keys, key);
    if (it == keys.end()) fail(MPI_ERR_INFO_NOKEY, fmt::format("no key \"{}\" in the info object", key));
    keys.erase(it);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_delete)

int PMPI_Info_dup(MPI_Info info, MPI_Info* out) {
  return call("MPI_Info_dup", MPI_COMM_WORLD, [&] {
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, "MPI_INFO_NULL");
    *out = new_info(info_keys(info));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info* info) {
  return call("MPI_Info_free", MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, "null info pointer");
    keys_of(*info);  // validates
    mine().infos[static_cast<uint32_t>(*info) & ~kInfoMask].reset();
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Info_free)

}  // extern "C"
