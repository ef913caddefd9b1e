// Machine configuration: the one place TOML is read. Everything below this layer sees only the
// plain structs of net/config.hpp; nothing else includes toml++.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mgen/host/config.hpp"
#include "mgen/mpi/config.hpp"
#include "mgen/net/config.hpp"

namespace mgen::config {

struct MachineConfig {
  std::string name = "default";
  std::string description = "built-in default machine: 8x8x8 torus, 10 GB/s links";
  std::string source = "<built-in>";  // the file it came from
  net::NetworkConfig network;
  mpi::MpiConfig mpi;
  mpi::NodeConfig node;
  mpi::CollectiveConfig collectives;
  // The Breaking Band host breakdown ([host]); absent on machines that do not give one. When
  // present with derive = true, mpi and network above already hold the values derived from it.
  std::optional<host::HostConfig> host;
};

// A configuration problem, already formatted as "FILE:LINE:COLUMN: KEY: what is wrong" (line and
// column when the key was written in the file; "--set KEY=VALUE: ..." for command-line overrides).
class Error : public std::runtime_error {
 public:
  Error(std::string where, std::string key, const std::string& message)
      : std::runtime_error(where + ": " + (key.empty() ? "" : key + ": ") + message),
        where_(std::move(where)),
        key_(std::move(key)) {}
  const std::string& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  std::string where_, key_;
};

// The built-in machine used when no -c is given.
MachineConfig default_machine();

// Called with the machine once every key is read and its topology's sizes are known to be
// valid, just before it is built to check it (a torus of millions of routers takes gigabytes):
// `mgen` estimates the memory there and throws to refuse. What it throws passes through.
using BeforeBuild = std::function<void(const MachineConfig&)>;

// Reads a machine file, applies `overrides` ("dotted.key=value", TOML value syntax; a bare word
// is taken as a string) on top, and checks that the result builds (topology, routing, buffers).
// A key that belongs to another kind of topology than the one chosen (topology.down on a torus)
// is refused. Throws Error.
MachineConfig load_machine(const std::string& path, const std::vector<std::string>& overrides = {},
                           const BeforeBuild& before_build = {});
// The same from text; `source_name` stands in for the file name in messages.
MachineConfig load_machine_text(std::string_view toml, const std::string& source_name,
                                const std::vector<std::string>& overrides = {}, const BeforeBuild& before_build = {});
// The key of an override "dotted.key=value" as the loaders read it (spaces around it do not
// count); nullopt when there is no '='.
std::optional<std::string> override_key(std::string_view text);

// The default machine with overrides applied.
MachineConfig load_default(const std::vector<std::string>& overrides = {}, const BeforeBuild& before_build = {});

// Every key a machine file may contain, with its meaning, for `mgen info --keys` and the docs.
struct KeyDoc {
  const char* key;
  const char* meaning;
};
const std::vector<KeyDoc>& key_reference();

}  // namespace mgen::config
