// Internal to the config layer: typed reads of TOML values that fail with a positioned Error.
// This header (and the config/ sources) are the only code that includes toml++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "mgen/config/machine.hpp"

namespace mgen::config::detail {

// Names the place a node came from in messages. Nodes parsed from the machine file carry its
// path and a line; nodes parsed from a --set override carry the override text as their path
// (see apply_override), so an override problem names the override, not the file.
class Locator {
 public:
  explicit Locator(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  bool from_override(const toml::source_region& source) const { return source.path && *source.path != file_; }
  // "FILE:LINE:COLUMN", the override text, or the file alone for nodes nobody wrote.
  std::string where(const toml::source_region& source) const;
  std::string where(const toml::node& node) const { return where(node.source()); }

 private:
  std::string file_;
};

// `string "two"`, `integer 5`, `an array`: what was found, for "expected X, got Y".
std::string describe(const toml::node& node);

// One key's value together with what is needed to complain about it.
class Field {
 public:
  Field(const toml::node& node, std::string key, const Locator& locator)
      : node_(node), key_(std::move(key)), locator_(locator) {}
  const toml::node& node() const { return node_; }
  const std::string& key() const { return key_; }

  [[noreturn]] void fail(const std::string& message) const { fail_at(node_, message); }
  [[noreturn]] void fail_at(const toml::node& at, const std::string& message) const;

  std::string string() const;
  bool boolean() const;
  double number() const;                               // a positive integer or float
  double fraction() const;                             // a number from 0 up to (not including) 1
  double fraction_at_most(double most) const;          // a fraction from 0 to `most`
  uint32_t count() const;                              // a non-negative integer that fits 32 bits
  std::vector<uint32_t> counts() const;                // an array of those
  simcore::Bytes size() const;                         // an integer number of bytes or a string with a unit
  simcore::Time time() const;                          // a string with a unit
  simcore::Bandwidth bandwidth() const;                // a string with a unit
  std::vector<simcore::Bandwidth> bandwidths() const;  // a string, or an array of strings
  // An array of [size, bandwidth] pairs such as [["64KiB", "20GB/s"], ["4MiB", "9GB/s"]], sizes
  // strictly increasing.
  std::vector<std::pair<simcore::Bytes, simcore::Bandwidth>> size_bandwidths() const;
  // An array of [size, time] pairs such as [["1KiB", "400ns"], ["4KiB", "650ns"]], sizes strictly
  // increasing.
  std::vector<std::pair<simcore::Bytes, simcore::Time>> size_times() const;

 private:
  double real() const;  // an integer or float, as it is
  uint32_t count_of(const toml::node& n, const std::string& context) const;
  // The [size, value] rows of size_bandwidths and size_times: `expected` starts the message for a
  // malformed array, value_of(node, "element i: ") reads one value.
  template <class V, class ValueOf>
  std::vector<std::pair<simcore::Bytes, V>> size_rows(const char* expected, ValueOf value_of) const;
  simcore::Bandwidth bandwidth_of(const toml::node& n, const std::string& context) const;

  const toml::node& node_;
  std::string key_;
  const Locator& locator_;
};

// The machine being filled, plus the fat-tree shorthand which is only resolved once every key
// has been read (it must not be combined with down/up, whichever order they were written in).
struct Loaded {
  MachineConfig machine;
  const toml::node* k_node = nullptr;
  const toml::node* levels_node = nullptr;
  const toml::node* down_node = nullptr;
  const toml::node* up_node = nullptr;
  uint32_t k = 0;
  uint32_t levels = 0;
  // [host] keys as read; it becomes machine.host only if the file (or --set) has a [host].
  host::HostConfig host;
};

// The schema: one row per key a machine file may contain. It drives reading, the unknown-key
// check and key_reference(), so the three cannot disagree.
struct KeySpec {
  const char* key;  // "table.key"
  const char* meaning;
  void (*apply)(const Field& field, Loaded& out);
};
const std::vector<KeySpec>& key_specs();

}  // namespace mgen::config::detail
