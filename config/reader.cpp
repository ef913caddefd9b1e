#include "reader.hpp"

#include <limits>

#include <fmt/format.h>

#include "mgen/config/units.hpp"

namespace mgen::config::detail {

std::string Locator::where(const toml::source_region& source) const {
  if (from_override(source)) return *source.path;
  if (source.begin.line == 0) return file_;
  return fmt::format("{}:{}:{}", file_, source.begin.line, source.begin.column);
}

std::string describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return fmt::format("string \"{}\"", node.as_string()->get());
    case toml::node_type::integer:
      return fmt::format("integer {}", node.as_integer()->get());
    case toml::node_type::floating_point:
      return fmt::format("floating-point {}", node.as_floating_point()->get());
    case toml::node_type::boolean:
      return fmt::format("boolean {}", node.as_boolean()->get());
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date/time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

void Field::fail_at(const toml::node& at, const std::string& message) const {
  throw Error(locator_.where(at), key_, message);
}

std::string Field::string() const {
  if (const auto* s = node_.as_string()) return s->get();
  fail("expected a string, got " + describe(node_));
}

bool Field::boolean() const {
  if (const auto* b = node_.as_boolean()) return b->get();
  fail("expected true or false, got " + describe(node_));
}

double Field::real() const {
  if (const auto* d = node_.as_floating_point()) return d->get();
  if (const auto* i = node_.as_integer()) return static_cast<double>(i->get());
  fail("expected a number, got " + describe(node_));
}

double Field::fraction() const {
  const double v = real();
  if (!(v >= 0 && v < 1)) fail(fmt::format("must be a number from 0 up to (not including) 1, got {}", v));
  return v;
}

double Field::fraction_at_most(double most) const {
  const double v = fraction();
  if (v > most) fail(fmt::format("must be from 0 to {}, got {}", most, v));
  return v;
}

double Field::number() const {
  const double v = real();
  if (!(v > 0) || v > 1e6) fail(fmt::format("must be a positive number (at most 1e6), got {}", v));
  return v;
}

uint32_t Field::count_of(const toml::node& n, const std::string& context) const {
  const auto* i = n.as_integer();
  if (i == nullptr) fail_at(n, context + "expected an integer, got " + describe(n));
  const int64_t v = i->get();
  if (v < 0) fail_at(n, fmt::format("{}must not be negative, got {}", context, v));
  if (v > int64_t{std::numeric_limits<uint32_t>::max()}) {
    fail_at(n, fmt::format("{}{} is out of range (at most {})", context, v, std::numeric_limits<uint32_t>::max()));
  }
  return static_cast<uint32_t>(v);
}

uint32_t Field::count() const {
  return count_of(node_, "");
}

std::vector<uint32_t> Field::counts() const {
  const auto* a = node_.as_array();
  if (a == nullptr) fail("expected an array of integers such as [8, 8, 8], got " + describe(node_));
  std::vector<uint32_t> out;
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(count_of(*a->get(i), fmt::format("element {}: ", i + 1)));
  return out;
}

simcore::Bytes Field::size() const {
  if (const auto* i = node_.as_integer()) {
    if (i->get() < 0) fail(fmt::format("must not be negative, got {}", i->get()));
    return simcore::Bytes(static_cast<uint64_t>(i->get()));
  }
  if (const auto* s = node_.as_string()) {
    try {
      return parse_bytes(s->get());
    } catch (const UnitError& e) {
      fail(e.what());
    }
  }
  fail("expected a size (an integer number of bytes, or a string such as \"16KiB\"), got " + describe(node_));
}

simcore::Time Field::time() const {
  if (const auto* s = node_.as_string()) {
    try {
      return parse_time(s->get());
    } catch (const UnitError& e) {
      fail(e.what());
    }
  }
  // A bare number is refused rather than guessed at: is 128 nanoseconds or picoseconds?
  fail("expected a time string with a unit, such as \"128ns\", got " + describe(node_));
}

simcore::Bandwidth Field::bandwidth_of(const toml::node& n, const std::string& context) const {
  const auto* s = n.as_string();
  if (s == nullptr) fail_at(n, context + "expected a bandwidth string such as \"4GB/s\", got " + describe(n));
  try {
    return parse_bandwidth(s->get());
  } catch (const UnitError& e) {
    fail_at(n, context + e.what());
  }
}

simcore::Bandwidth Field::bandwidth() const {
  return bandwidth_of(node_, "");
}

std::vector<simcore::Bandwidth> Field::bandwidths() const {
  if (node_.is_string()) return {bandwidth()};
  const auto* a = node_.as_array();
  if (a == nullptr) {
    fail("expected a bandwidth string such as \"4GB/s\" or an array of them, got " + describe(node_));
  }
  std::vector<simcore::Bandwidth> out;
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(bandwidth_of(*a->get(i), fmt::format("element {}: ", i + 1)));
  return out;
}

template <class V, class ValueOf>
std::vector<std::pair<simcore::Bytes, V>> Field::size_rows(const char* expected, ValueOf value_of) const {
  const auto* a = node_.as_array();
  if (a == nullptr) fail(expected + describe(node_));
  std::vector<std::pair<simcore::Bytes, V>> out;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::node& row = *a->get(i);
    const auto* pair = row.as_array();
    const std::string element = fmt::format("element {}: ", i + 1);
    if (pair == nullptr || pair->size() != 2) fail_at(row, element + expected + describe(row));
    const simcore::Bytes bytes = Field(*pair->get(0), key_, locator_).size();
    const V value = value_of(*pair->get(1), element);
    if (!out.empty() && bytes <= out.back().first) {
      fail_at(*pair->get(0), fmt::format("{}sizes must increase ({} after {} bytes)", element, bytes.count(),
                                         out.back().first.count()));
    }
    out.emplace_back(bytes, value);
  }
  return out;
}

std::vector<std::pair<simcore::Bytes, simcore::Bandwidth>> Field::size_bandwidths() const {
  return size_rows<simcore::Bandwidth>(
      "expected an array of [size, bandwidth] pairs such as [[\"64KiB\", \"20GB/s\"]], got ",
      [&](const toml::node& n, const std::string& element) {
        const simcore::Bandwidth rate = bandwidth_of(n, element);
        if (rate.is_zero()) fail_at(n, element + "bandwidth must be greater than zero");
        return rate;
      });
}

std::vector<std::pair<simcore::Bytes, simcore::Time>> Field::size_times() const {
  return size_rows<simcore::Time>(
      "expected an array of [size, time] pairs such as [[\"1KiB\", \"400ns\"]], got ",
      [&](const toml::node& n, const std::string&) { return Field(n, key_, locator_).time(); });
}

}  // namespace mgen::config::detail
