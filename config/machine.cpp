// Loading a machine: parse the TOML, apply --set overrides to the parsed tree (so they pass
// through exactly the checks a file does), read every key through the schema, then build the
// topology and routing once so an impossible machine fails here, at the line that made it so.
#include "mgen/config/machine.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

#include "mgen/config/units.hpp"
#include "mgen/host/breakdown.hpp"
#include "mgen/net/routing.hpp"
#include "mgen/net/topology.hpp"
#include "mgen/net/topology_size.hpp"
#include "reader.hpp"

namespace mgen::config {
namespace {

using detail::describe;
using detail::Field;
using detail::KeySpec;
using detail::Loaded;
using detail::Locator;

// Bounds the k/levels expansion before anything is allocated; the topology builder enforces
// its own, smaller, limit on levels with a proper message.
constexpr uint32_t kMaxShorthandLevels = 64;

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return std::string(s);
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& s : items)
    out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

// Optimal string alignment distance: Levenshtein plus adjacent transposition, the commonest
// typing slip ("rotuing").
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The candidate closest to `word`, if close enough to be a plausible typo of it.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  size_t best = std::numeric_limits<size_t>::max();
  std::optional<std::string> found;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best) {
      best = d;
      found = c;
    }
  }
  if (best > std::max<size_t>(1, word.size() / 3)) return std::nullopt;
  return found;
}

const KeySpec* find_spec(std::string_view dotted) {
  for (const KeySpec& s : detail::key_specs()) {
    if (dotted == s.key) return &s;
  }
  return nullptr;
}

std::vector<std::string> table_names() {
  std::vector<std::string> out;
  for (const KeySpec& s : detail::key_specs()) {
    const std::string_view key = s.key;
    const std::string table(key.substr(0, key.find('.')));
    if (std::find(out.begin(), out.end(), table) == out.end()) out.push_back(table);
  }
  return out;
}

bool is_table_name(std::string_view name) {
  const std::vector<std::string> names = table_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> keys_of(std::string_view table) {
  std::vector<std::string> out;
  for (const KeySpec& s : detail::key_specs()) {
    const std::string_view key = s.key;
    if (key.substr(0, key.find('.')) == table) out.emplace_back(key.substr(key.find('.') + 1));
  }
  return out;
}

// The tables that do have `key`, for a key written under the wrong heading.
std::vector<std::string> homes_of(std::string_view key) {
  std::vector<std::string> out;
  for (const std::string& t : table_names()) {
    if (find_spec(t + "." + std::string(key)) != nullptr) out.push_back("[" + t + "]");
  }
  return out;
}

std::string unknown_key_message(const std::string& table, const std::string& key) {
  const std::string msg = fmt::format("`{}` is not a key of [{}]", key, table);
  if (auto near = closest(key, keys_of(table))) return fmt::format("{} (did you mean `{}`?)", msg, *near);
  if (auto homes = homes_of(key); !homes.empty()) return fmt::format("{} (it belongs in {})", msg, join(homes, " or "));
  return fmt::format("{} (known: {})", msg, join(keys_of(table), ", "));
}

std::string unknown_table_message(const std::string& name) {
  const std::string msg = fmt::format("`{}` is not a table of a machine file", name);
  if (auto near = closest(name, table_names())) return fmt::format("{} (did you mean `{}`?)", msg, *near);
  if (auto homes = homes_of(name); !homes.empty())
    return fmt::format("{} (it is a key of {})", msg, join(homes, " or "));
  return fmt::format("{} (known: {})", msg, join(table_names(), ", "));
}

std::string not_a_table_message(const std::string& name, const toml::node& node) {
  return fmt::format("expected a table ([{}]), got {}", name, describe(node));
}

// A key's own position when it was written in the file, else its value's.
const toml::source_region& place_of(const toml::key& key, const toml::node& value) {
  return key.source().begin.line != 0 ? key.source() : value.source();
}

// k = 4, levels = 3 is a k-ary n-tree: down = [k]*n, up = [k]*(n-1).
void resolve_fat_tree_shorthand(Loaded& m, const Locator& loc) {
  if (m.k_node == nullptr && m.levels_node == nullptr) return;
  if (m.k_node == nullptr || m.levels_node == nullptr) {
    const bool has_k = m.k_node != nullptr;
    throw Error(loc.where(has_k ? *m.k_node : *m.levels_node), has_k ? "topology.k" : "topology.levels",
                "`k` and `levels` go together: a k-ary n-tree needs both");
  }
  if (m.down_node != nullptr || m.up_node != nullptr) {
    const bool down = m.down_node != nullptr;
    throw Error(loc.where(down ? *m.down_node : *m.up_node), down ? "topology.down" : "topology.up",
                "cannot be combined with the `k`/`levels` shorthand; give one or the other");
  }
  if (m.k == 0) throw Error(loc.where(*m.k_node), "topology.k", "must be at least 1");
  if (m.levels == 0 || m.levels > kMaxShorthandLevels) {
    throw Error(loc.where(*m.levels_node), "topology.levels",
                fmt::format("{} levels; 1 to {} allowed", m.levels, kMaxShorthandLevels));
  }
  m.machine.network.topology.down.assign(m.levels, m.k);
  m.machine.network.topology.up.assign(m.levels - 1, m.k);
}

// Keys that describe one kind of topology only. Written for another kind they would be read and
// then ignored, so the machine modelled is not the one the file seems to describe.
struct KindKeys {
  const char* kind;  // as the error names it
  std::vector<std::string_view> kinds;
  std::vector<std::string_view> keys;
};
const std::vector<KindKeys>& kind_keys() {
  static const std::vector<KindKeys> table = {
      {"a torus or mesh", {"torus", "mesh"}, {"dims", "channels", "nodes_per_router"}},
      {"a fat tree", {"fattree"}, {"down", "up", "k", "levels"}},
      {"a crossbar", {"crossbar"}, {"nodes"}},
  };
  return table;
}

// The first key (in file order, overrides last) of [topology] that belongs to a kind other than
// the one chosen; an unknown kind is left to the topology builder to report.
void check_kind_keys(const toml::table& root, const std::string& kind, const Locator& loc) {
  const toml::node* node = root.get("topology");
  const toml::table* topology = node != nullptr ? node->as_table() : nullptr;
  if (topology == nullptr) return;
  bool known = false;
  for (const KindKeys& k : kind_keys())
    known = known || std::find(k.kinds.begin(), k.kinds.end(), kind) != k.kinds.end();
  if (!known) return;
  struct Found {
    bool from_override;
    uint32_t line, column;
    toml::source_region at;
    std::string key;
    const char* owner;
  };
  std::optional<Found> first;
  for (auto&& [key, value] : *topology) {
    for (const KindKeys& k : kind_keys()) {
      if (std::find(k.kinds.begin(), k.kinds.end(), kind) != k.kinds.end()) continue;
      if (std::find(k.keys.begin(), k.keys.end(), key.str()) == k.keys.end()) continue;
      const toml::source_region at = place_of(key, value);
      const Found f{
          loc.from_override(value.source()), at.begin.line, at.begin.column, at, std::string(key.str()), k.kind};
      if (!first ||
          std::tie(f.from_override, f.line, f.column) < std::tie(first->from_override, first->line, first->column)) {
        first = f;
      }
    }
  }
  if (!first) return;
  throw Error(loc.where(first->at), "topology." + first->key,
              fmt::format("is a key of {}, but topology.kind is \"{}\"; remove it, or set the kind it describes",
                          first->owner, kind));
}

// Reads every table and key. Problems are reported in the order they were written (toml++
// keeps keys sorted by name), overrides last, so the first message is the first mistake.
Loaded read_tables(const toml::table& root, const Locator& loc) {
  struct Step {
    bool from_override;
    uint32_t line;
    uint32_t column;
    std::function<void()> run;
  };
  std::vector<Step> steps;
  auto add = [&](const toml::source_region& at, std::function<void()> run) {
    steps.push_back({loc.from_override(at), at.begin.line, at.begin.column, std::move(run)});
  };

  Loaded out;
  for (auto&& [table_key, table_node] : root) {
    const std::string table(table_key.str());
    const toml::node* node = &table_node;
    const toml::source_region at = place_of(table_key, table_node);
    if (!is_table_name(table)) {
      add(at, [&loc, at, table] { throw Error(loc.where(at), table, unknown_table_message(table)); });
      continue;
    }
    const toml::table* t = node->as_table();
    if (t == nullptr) {
      add(at, [&loc, node, table] { throw Error(loc.where(*node), table, not_a_table_message(table, *node)); });
      continue;
    }
    for (auto&& [key, value] : *t) {
      const std::string name(key.str());
      const std::string dotted = table + "." + name;
      const toml::node* v = &value;
      const KeySpec* spec = find_spec(dotted);
      if (spec == nullptr) {
        const toml::source_region key_at = place_of(key, value);
        add(v->source(), [&loc, key_at, dotted, table, name] {
          throw Error(loc.where(key_at), dotted, unknown_key_message(table, name));
        });
        continue;
      }
      add(v->source(), [&loc, &out, spec, v, dotted] { spec->apply(Field(*v, dotted, loc), out); });
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return std::tie(a.from_override, a.line, a.column) < std::tie(b.from_override, b.line, b.column);
  });
  for (const Step& s : steps)
    s.run();
  check_kind_keys(root, out.machine.network.topology.kind, loc);
  resolve_fat_tree_shorthand(out, loc);
  return out;
}

// Breaking Band's [host]: a breakdown with a silently zero component would mislead, so a [host]
// table gives every component (all keys but unsignaled_interval and derive). With derive = true
// it sets the MPI overheads and the NIC, link and switch latencies (host::derive_simulation
// explains the mapping), so those keys must not also be written by hand.
void resolve_host(Loaded& m, const toml::table& root, const Locator& loc) {
  const toml::node* table = root.get("host");
  if (table == nullptr) return;
  const toml::table& given = *table->as_table();  // read_tables refused anything else
  std::vector<std::string> missing;
  for (const KeySpec& s : detail::key_specs()) {
    const std::string_view key = s.key;
    if (!key.starts_with("host.")) continue;
    const std::string name(key.substr(5));
    if (name != "unsignaled_interval" && name != "derive" && !given.contains(name)) missing.push_back(name);
  }
  if (!missing.empty()) {
    throw Error(
        loc.where(*table), "host",
        fmt::format("a breakdown needs every component (Breaking Band Table 1); missing {}", join(missing, ", ")));
  }
  const host::HostConfig& h = m.host;
  auto where = [&](const char* key) { return loc.where(*root.at_path(key).node()); };
  if (h.unsignaled_interval == 0)
    throw Error(where("host.unsignaled_interval"), "host.unsignaled_interval", "must be at least 1");
  if (h.post_prog.count_ps() * int64_t{h.unsignaled_interval} < h.llp_prog.count_ps()) {
    throw Error(where("host.post_prog"), "host.post_prog",
                fmt::format("Post_prog ({}) is less than its LLP share, LLP_prog / c ({} / {})",
                            format_time(h.post_prog), format_time(h.llp_prog), h.unsignaled_interval));
  }
  m.machine.host = h;
  if (!h.derive) return;
  for (const char* key : {"mpi.send_overhead", "mpi.recv_overhead", "mpi.send_progress_overhead", "nic.dma_latency",
                          "nic.link_latency", "router.switch_delay"}) {
    if (const toml::node* n = root.at_path(key).node()) {
      throw Error(
          loc.where(*n), key,
          "is derived from [host] (host.derive = true); remove it, or set host.derive = false to give it by hand");
    }
  }
  const host::SimulationParams p = host::derive_simulation(h);
  net::RouterConfig& router = m.machine.network.router;
  // The paper measures only the switch's total; what the router pipeline's other stages take
  // (usually zero on such a machine) is left to them and the traversal gets the rest.
  const simcore::Time stages = router.routing_delay + router.vc_alloc_delay + router.switch_alloc_delay;
  if (p.switch_latency < stages) {
    throw Error(where("host.switch"), "host.switch",
                fmt::format("{} is less than the router's routing, VC and switch allocation delays together ({})",
                            format_time(p.switch_latency), format_time(stages)));
  }
  router.switch_delay = p.switch_latency - stages;
  m.machine.network.nic.link_latency = p.nic_link_latency;
  m.machine.network.nic.dma_latency = p.dma_latency;
  m.machine.mpi.send_overhead = p.send_overhead;
  m.machine.mpi.recv_overhead = p.recv_overhead;
  m.machine.mpi.send_progress_overhead = p.send_progress_overhead;
}

// Where a key named by the network layer was written. down/up may have come from the k/levels
// shorthand; a key nobody wrote is a default of the file as a whole.
std::string where_key(const toml::table& root, const std::string& key, const Locator& loc) {
  std::vector<std::string> candidates{key};
  if (key == "topology.down" || key == "topology.up") {
    candidates.emplace_back("topology.levels");
    candidates.emplace_back("topology.k");
  }
  for (const std::string& c : candidates) {
    if (const toml::node* n = root.at_path(c).node()) return loc.where(*n);
  }
  return loc.file();
}

// Builds the machine once, exactly as a simulation would, so that every semantic rule of the
// network layer (dimension limits, VC counts, routing applicability) is checked at load time.
void check_builds(const MachineConfig& machine, const toml::table& root, const Locator& loc,
                  const BeforeBuild& before_build) {
  const net::NetworkConfig& network = machine.network;
  try {
    // The sizes first, with the builder's checks but nothing allocated, then the caller's word.
    [[maybe_unused]] const net::TopologySize size = net::topology_size(network);
    if (before_build) before_build(machine);
    const net::Topology topology = net::Topology::build(network);
    [[maybe_unused]] const net::Routing routing(topology, network.router);
    if (machine.node.procs_per_node == 0) throw net::ConfigError("node.procs_per_node", "must be at least 1");
    if (machine.node.memory_bandwidth.is_zero()) {
      throw net::ConfigError("node.memory_bandwidth", "bandwidth must be greater than zero");
    }
    if (machine.node.stream_bandwidth.is_zero()) {
      throw net::ConfigError("node.stream_bandwidth", "bandwidth must be greater than zero");
    }
  } catch (const net::ConfigError& e) {
    throw Error(where_key(root, e.key(), loc), e.key(), e.what());
  }
}

// `v = <value>` parsed with the override text as its source path, so that every node of the
// value later names the override in messages. nullopt when it is not a single TOML value.
std::optional<toml::table> parse_value(std::string_view value, const std::string& where) {
  try {
    toml::table t = toml::parse(fmt::format("v = {}", value), std::string_view(where));
    if (t.size() == 1 && t.contains("v")) return t;
  } catch (const toml::parse_error&) {
    // Not TOML; the caller falls back to a string.
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> override_key(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  return trim(text.substr(0, eq));
}

namespace {

void apply_override(toml::table& root, const std::string& text, const Locator& loc) {
  const std::string where = "--set " + text;
  const std::optional<std::string> parsed_key = override_key(text);
  if (!parsed_key) throw Error(where, "", "expected KEY=VALUE, such as router.vcs=4");
  const std::string& key = *parsed_key;
  const size_t eq = text.find('=');
  if (key.empty()) throw Error(where, "", "expected KEY=VALUE; the key is empty");
  const size_t dot = key.find('.');
  const std::string table = key.substr(0, dot);
  if (!is_table_name(table)) throw Error(where, key, unknown_table_message(table));
  if (dot == std::string::npos) throw Error(where, key, "name a key inside the table, such as router.vcs");
  const std::string name = key.substr(dot + 1);
  if (find_spec(key) == nullptr) throw Error(where, key, unknown_key_message(table, name));

  const std::string value = trim(std::string_view(text).substr(eq + 1));
  std::optional<toml::table> parsed = parse_value(value, where);
  if (!parsed) {
    // A bare word such as `adaptive` is a string; toml++ writes it back quoted and escaped.
    std::ostringstream quoted;
    quoted << toml::value<std::string>(value);
    parsed = parse_value(quoted.str(), where);
  }
  if (!parsed) throw Error(where, key, "cannot read the value");

  toml::table* t = nullptr;
  if (toml::node* existing = root.get(table)) {
    t = existing->as_table();
    if (t == nullptr) throw Error(loc.where(*existing), table, not_a_table_message(table, *existing));
  } else {
    t = root.insert(table, toml::table{}).first->second.as_table();
  }
  t->insert_or_assign(name, std::move(*parsed->get("v")));
}

MachineConfig load_tree(toml::table root, const std::string& source, const std::vector<std::string>& overrides,
                        const BeforeBuild& before_build) {
  const Locator loc(source);
  for (const std::string& o : overrides)
    apply_override(root, o, loc);
  Loaded loaded = read_tables(root, loc);
  resolve_host(loaded, root, loc);
  loaded.machine.source = source;
  if (source != default_machine().source) {
    // A file that does not name itself must not inherit the built-in machine's name.
    if (!root.at_path("machine.name")) loaded.machine.name = std::filesystem::path(source).stem().string();
    if (!root.at_path("machine.description")) loaded.machine.description.clear();
  }
  check_builds(loaded.machine, root, loc, before_build);
  return std::move(loaded.machine);
}

}  // namespace

MachineConfig default_machine() {
  return MachineConfig{};
}

MachineConfig load_machine_text(std::string_view toml, const std::string& source_name,
                                const std::vector<std::string>& overrides, const BeforeBuild& before_build) {
  toml::table root;
  try {
    root = toml::parse(toml, std::string_view(source_name));
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    throw Error(fmt::format("{}:{}:{}", source_name, at.line, at.column), "", std::string(e.description()));
  }
  return load_tree(std::move(root), source_name, overrides, before_build);
}

MachineConfig load_machine(const std::string& path, const std::vector<std::string>& overrides,
                           const BeforeBuild& before_build) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(
        path, "",
        fmt::format("cannot open machine file ({})", std::make_error_code(std::errc::is_a_directory).message()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "", fmt::format("cannot open machine file ({})", std::generic_category().message(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw Error(path, "", fmt::format("cannot read machine file ({})", std::generic_category().message(errno)));
  return load_machine_text(text.str(), path, overrides, before_build);
}

MachineConfig load_default(const std::vector<std::string>& overrides, const BeforeBuild& before_build) {
  return load_tree(toml::table{}, default_machine().source, overrides, before_build);
}

}  // namespace mgen::config
