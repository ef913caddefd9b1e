// Machine files: what each key fills in, and where every kind of mistake is reported. Expected
// positions are counted by hand from the snippets below (lines from 1, columns from 1).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mgen/config/machine.hpp"

using mgen::config::Error;
using mgen::config::key_reference;
using mgen::config::load_default;
using mgen::config::load_machine;
using mgen::config::load_machine_text;
using mgen::config::MachineConfig;
using mgen::simcore::Bandwidth;
using mgen::simcore::Bytes;
using mgen::simcore::Time;

namespace {

// The full message of the Error that loading `text` (as "t.toml") throws, or "" if none.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_machine_text(text, "t.toml", overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Bandwidth bps(uint64_t v) {
  return Bandwidth::bytes_per_second(v);
}

}  // namespace

TEST_CASE("every key of a machine file lands in its field", "[config][machine]") {
  const MachineConfig m = load_machine_text(R"(
[machine]
name = "nsim-ace-ib"
description = "test machine"
[network]
backend = "analytic"
[topology]
kind = "torus"
dims = [17, 8, 24]
channels = [2, 1, 2]
link_bandwidth = ["4.68GB/s", "3.5GB/s", "4.68GB/s"]
link_latency = "108.75ns"
nodes_per_router = 2
[router]
routing = "adaptive"
vcs = 4
vc_buffer = "32KiB"
routing_delay = "1ns"
vc_alloc_delay = "2ns"
switch_alloc_delay = "3ns"
switch_delay = "128ns"
switch_bandwidth = "9.375GB/s"
arbitration = "age"
dateline = true
[nic]
nics_per_node = 2
link_bandwidth = "10Gb/s"
link_latency = "0.6ns"
dma_bandwidth = "2.8GB/s"
dma_latency = "100ns"
packet_payload = "4KiB"
packet_header = 64
rx_buffer = "128KiB"
)",
                                            "t.toml");
  CHECK(m.name == "nsim-ace-ib");
  CHECK(m.description == "test machine");
  CHECK(m.source == "t.toml");
  const auto& n = m.network;
  CHECK(n.backend == "analytic");
  CHECK(n.topology.kind == "torus");
  CHECK(n.topology.dims == std::vector<uint32_t>{17, 8, 24});
  CHECK(n.topology.channels == std::vector<uint32_t>{2, 1, 2});
  CHECK(n.topology.link_bandwidth == std::vector<Bandwidth>{bps(4680000000), bps(3500000000), bps(4680000000)});
  CHECK(n.topology.link_latency == Time::ps(108750));
  CHECK(n.topology.nodes_per_router == 2);
  CHECK(n.router.routing == "adaptive");
  CHECK(n.router.vcs == 4);
  CHECK(n.router.vc_buffer == Bytes(32768));
  CHECK(n.router.routing_delay == Time::ps(1000));
  CHECK(n.router.vc_alloc_delay == Time::ps(2000));
  CHECK(n.router.switch_alloc_delay == Time::ps(3000));
  CHECK(n.router.switch_delay == Time::ps(128000));
  CHECK(n.router.switch_bandwidth == bps(9375000000));
  CHECK(n.router.arbitration == "age");
  CHECK(n.router.dateline);
  CHECK(n.nic.nics_per_node == 2);
  CHECK(n.nic.link_bandwidth == bps(1250000000));
  CHECK(n.nic.link_latency == Time::ps(600));
  CHECK(n.nic.dma_bandwidth == bps(2800000000));
  CHECK(n.nic.dma_latency == Time::ps(100000));
  CHECK(n.nic.packet_payload == Bytes(4096));
  CHECK(n.nic.packet_header == Bytes(64));
  CHECK(n.nic.rx_buffer == Bytes(131072));
}

TEST_CASE("keys left out keep the built-in defaults", "[config][machine]") {
  const MachineConfig def = mgen::config::default_machine();
  const MachineConfig m = load_machine_text("[router]\nvcs = 3\n", "t.toml");
  CHECK(m.network.router.vcs == 3);
  // ...except the name: an unnamed file is called after itself, not after the built-in machine.
  CHECK(m.name == "t");
  CHECK(m.description.empty());
  CHECK(m.network.topology.dims == def.network.topology.dims);
  CHECK(m.network.router.switch_delay == def.network.router.switch_delay);
  CHECK(m.network.nic.rx_buffer == def.network.nic.rx_buffer);
  // A single bandwidth string is the one-value form of the per-dimension list.
  const MachineConfig one = load_machine_text("[topology]\nlink_bandwidth = \"4GB/s\"\n", "t.toml");
  CHECK(one.network.topology.link_bandwidth == std::vector<Bandwidth>{bps(4000000000)});
  // Sizes may be integers (bytes) or strings.
  CHECK(load_machine_text("[router]\nvc_buffer = 20000\n", "t.toml").network.router.vc_buffer == Bytes(20000));
  CHECK(load_machine_text("", "t.toml").network.topology.kind == "torus");
}

TEST_CASE("fat trees, the k/levels shorthand and crossbars", "[config][machine]") {
  const MachineConfig explicit_tree =
      load_machine_text("[topology]\nkind = \"fattree\"\ndown = [4, 8]\nup = [2]\n", "t.toml");
  CHECK(explicit_tree.network.topology.down == std::vector<uint32_t>{4, 8});
  CHECK(explicit_tree.network.topology.up == std::vector<uint32_t>{2});

  const MachineConfig shorthand =
      load_machine_text("[topology]\nkind = \"fattree\"\nk = 4\nlevels = 3\n[router]\nrouting = \"dmodk\"\n", "t.toml");
  CHECK(shorthand.network.topology.down == std::vector<uint32_t>{4, 4, 4});
  CHECK(shorthand.network.topology.up == std::vector<uint32_t>{4, 4});

  const MachineConfig crossbar = load_machine_text("[topology]\nkind = \"crossbar\"\nnodes = 16\n", "t.toml");
  CHECK(crossbar.network.topology.crossbar_nodes == 16);

  // Line 3 holds `down`, which may not be combined with the shorthand (col 8: its `[`).
  CHECK(error_of("[topology]\nkind = \"fattree\"\ndown = [4, 4]\nk = 4\nlevels = 2\n") ==
        "t.toml:3:8: topology.down: cannot be combined with the `k`/`levels` shorthand; give one or the other");
  CHECK(error_of("[topology]\nkind = \"fattree\"\nk = 4\n") ==
        "t.toml:3:5: topology.k: `k` and `levels` go together: a k-ary n-tree needs both");
  // Down/up made from the shorthand are positioned at `levels` when the builder refuses them.
  CHECK_THAT(error_of("[topology]\nkind = \"fattree\"\nk = 2\nlevels = 9\n"),
             Catch::StartsWith("t.toml:4:10: topology.down: 9 levels"));
}

TEST_CASE("type, unit and range errors point at the value", "[config][machine]") {
  CHECK(error_of("[router]\nvcs = \"two\"\n") == "t.toml:2:7: router.vcs: expected an integer, got string \"two\"");
  CHECK_THAT(error_of("[nic]\nlink_latency = \"5 parsecs\"\n"),
             Catch::StartsWith("t.toml:2:16: nic.link_latency: bad time \"5 parsecs\": unknown unit \"parsecs\"") &&
                 Catch::Contains("ps, ns, us, ms, s"));
  CHECK_THAT(error_of("[nic]\nlink_latency = 20\n"),
             Catch::StartsWith("t.toml:2:16: nic.link_latency: expected a time string with a unit"));
  CHECK(error_of("[topology]\nnodes_per_router = -1\n") ==
        "t.toml:2:20: topology.nodes_per_router: must not be negative, got -1");
  CHECK_THAT(error_of("[router]\nvcs = 4294967296\n"),
             Catch::StartsWith("t.toml:2:7: router.vcs: 4294967296 is out of range"));
  // An array element is pointed at directly: `-2` starts at column 12.
  CHECK(error_of("[topology]\ndims = [4, -2, 4]\n") ==
        "t.toml:2:12: topology.dims: element 2: must not be negative, got -2");
  CHECK_THAT(error_of("[topology]\nlink_bandwidth = [\"4GB/s\", 4]\n"),
             Catch::StartsWith("t.toml:2:28: topology.link_bandwidth: element 2: expected a bandwidth string"));
  CHECK_THAT(
      error_of("\n\n[topology]\nlink_bandwidth = \"0GB/s\"\n"),
      Catch::StartsWith("t.toml:4:18: topology.link_bandwidth: bad bandwidth \"0GB/s\": must be greater than zero"));
  CHECK(error_of("[router]\ndateline = \"yes\"\n") ==
        "t.toml:2:12: router.dateline: expected true or false, got string \"yes\"");
  CHECK_THAT(error_of("[nic]\nrx_buffer = 1.5\n"),
             Catch::StartsWith("t.toml:2:13: nic.rx_buffer: expected a size") && Catch::Contains("floating-point 1.5"));
  CHECK_THAT(error_of("[machine]\nname = 3\n"),
             Catch::StartsWith("t.toml:2:8: machine.name: expected a string, got integer 3"));
  CHECK_THAT(error_of("router = 5\n"), Catch::StartsWith("t.toml:1:10: router: expected a table"));
  CHECK(error_of("[flow]\ntolerance = 0.05\n") == "t.toml:2:13: flow.tolerance: must be from 0 to 0.01, got 0.05");
  CHECK(error_of("[flow]\ntolerance = -0.001\n") ==
        "t.toml:2:13: flow.tolerance: must be a number from 0 up to (not including) 1, got -0.001");
  CHECK(load_machine_text("[flow]\ntolerance = 0\n", "t.toml", {}).network.flow.tolerance == 0);
  CHECK(load_machine_text("[flow]\ntolerance = 0.001\n", "t.toml", {}).network.flow.tolerance == 0.001);
}

TEST_CASE("unknown tables and keys are errors with a suggestion", "[config][machine]") {
  CHECK(error_of("[router]\nvcs = 2\nrotuing = \"dor\"\n") ==
        "t.toml:3:1: router.rotuing: `rotuing` is not a key of [router] (did you mean `routing`?)");
  CHECK_THAT(error_of("[router]\nlink_latency = \"1ns\"\n"),
             Catch::StartsWith("t.toml:2:1: router.link_latency: `link_latency` is not a key of [router] (it belongs "
                               "in [topology] or [nic])"));
  CHECK_THAT(
      error_of("[machine]\nname = \"x\"\n[rotuer]\nvcs = 2\n"),
      Catch::StartsWith("t.toml:3:2: rotuer: `rotuer` is not a table of a machine file (did you mean `router`?)"));
  CHECK_THAT(error_of("vcs = 2\n"),
             Catch::StartsWith("t.toml:1:1: vcs:") && Catch::Contains("it is a key of [router]"));
  CHECK_THAT(error_of("[router]\nzzzzzz = 1\n"), Catch::Contains("(known: routing, vcs,"));
}

TEST_CASE("the first mistake in the file is the one reported", "[config][machine]") {
  // toml++ keeps tables sorted by name ([nic] before [topology]); the report follows the file.
  CHECK_THAT(error_of("[topology]\nnodes_per_router = \"x\"\n[nic]\nnics_per_node = \"y\"\n"),
             Catch::StartsWith("t.toml:2:20: topology.nodes_per_router:"));
  CHECK_THAT(error_of("[router]\nvcs = \"x\"\narbitration = 1\n"), Catch::StartsWith("t.toml:2:7: router.vcs:"));
}

TEST_CASE("TOML syntax errors carry file, line and column", "[config][machine]") {
  const std::string e = error_of("[router]\nvcs = 2\nvc_buffer = = 3\n");
  CHECK_THAT(e, Catch::StartsWith("t.toml:3:"));
  CHECK_THAT(error_of("[router]\nvcs = 2\nvcs = 3\n"), Catch::StartsWith("t.toml:3:"));
  try {
    load_machine_text("[router\n", "t.toml");
    FAIL("no exception");
  } catch (const Error& err) {
    CHECK(err.key().empty());
    CHECK_THAT(err.where(), Catch::StartsWith("t.toml:1:"));
  }
}

TEST_CASE("machines that cannot be built point at the key responsible", "[config][machine]") {
  // A two-level tree takes one `up` value; `up` is on line 4, its `[` at column 6.
  CHECK_THAT(error_of("[topology]\nkind = \"fattree\"\ndown = [4, 4]\nup = [4, 4]\n"),
             Catch::StartsWith("t.toml:4:6: topology.up: a 2-level fat tree needs 1 `up` values"));
  // Only `vcs = 1` is written; the default torus with dimension-order routing needs 2.
  CHECK_THAT(error_of("[machine]\nname = \"x\"\n[router]\nvcs = 1\n"),
             Catch::StartsWith("t.toml:4:7: router.vcs: dimension-order routing on a torus needs 2 VCs"));
  // The culprit (`down`) was never written: the file as a whole is named.
  CHECK_THAT(error_of("[topology]\nkind = \"fattree\"\n"),
             Catch::StartsWith("t.toml: topology.down: a fat tree needs"));
  CHECK_THAT(error_of("[topology]\nkind = \"ring\"\n"),
             Catch::StartsWith("t.toml:2:8: topology.kind: unknown topology 'ring'"));
  CHECK_THAT(error_of("[network]\nbackend = \"fluid\"\n"),
             Catch::StartsWith("t.toml:2:11: network.backend: unknown backend"));
  CHECK_THAT(error_of("[router]\nvc_buffer = \"1KiB\"\n"),
             Catch::StartsWith("t.toml:2:13: router.vc_buffer: a VC buffer"));
  CHECK_THAT(error_of("[topology]\nkind = \"mesh\"\n[router]\nrouting = \"dmodk\"\n"),
             Catch::StartsWith("t.toml:4:11: router.routing: routing 'dmodk' does not apply"));
}

TEST_CASE("overrides are applied and checked like the file", "[config][machine]") {
  const std::string file = "[router]\nvcs = 4\n";
  const MachineConfig typed = load_machine_text(file, "t.toml", {"router.vcs=6", "topology.dims=[4,4]"});
  CHECK(typed.network.router.vcs == 6);
  CHECK(typed.network.topology.dims == std::vector<uint32_t>{4, 4});
  const MachineConfig bare =
      load_machine_text(file, "t.toml", {"router.routing=adaptive", "machine.name = my machine"});
  CHECK(bare.network.router.routing == "adaptive");
  CHECK(bare.name == "my machine");
  CHECK(load_default({"nic.link_latency=\"7ns\""}).network.nic.link_latency == Time::ps(7000));
  CHECK(load_default({"router.dateline=false", "router.vcs=1"}).network.router.dateline == false);
  CHECK(load_default({"router.reference=true"}).network.router.reference);
  CHECK_FALSE(load_default({}).network.router.reference);
  CHECK(load_default({"router.vc_buffer=2KiB", "nic.packet_payload=1KiB"}).network.router.vc_buffer == Bytes(2048));

  CHECK(error_of(file, {"router.vcs=abc"}) ==
        "--set router.vcs=abc: router.vcs: expected an integer, got string \"abc\"");
  CHECK(error_of(file, {"router.vcs=-1"}) == "--set router.vcs=-1: router.vcs: must not be negative, got -1");
  CHECK(error_of(file, {"router.rotuing=dor"}) ==
        "--set router.rotuing=dor: router.rotuing: `rotuing` is not a key of [router] (did you mean `routing`?)");
  CHECK_THAT(error_of(file, {"rotuer.vcs=2"}),
             Catch::StartsWith("--set rotuer.vcs=2: rotuer.vcs: `rotuer` is not a table"));
  CHECK_THAT(error_of(file, {"routervcs4"}), Catch::StartsWith("--set routervcs4: expected KEY=VALUE"));
  CHECK_THAT(error_of(file, {"=4"}), Catch::StartsWith("--set =4: expected KEY=VALUE"));
  CHECK_THAT(error_of(file, {"router=4"}), Catch::StartsWith("--set router=4: router: name a key"));
  CHECK_THAT(error_of(file, {"nic.link_latency=5"}),
             Catch::StartsWith("--set nic.link_latency=5: nic.link_latency: expected a time"));
  CHECK(error_of(file, {"topology.dims=[4,-1]"}) ==
        "--set topology.dims=[4,-1]: topology.dims: element 2: must not be negative, got -1");
  // A semantic problem caused by an override names the override.
  CHECK_THAT(error_of(file, {"router.vcs=1"}), Catch::StartsWith("--set router.vcs=1: router.vcs: dimension-order"));
  // ... but one caused by a key nobody wrote still names the file.
  CHECK_THAT(error_of(file, {"topology.kind=fattree"}), Catch::StartsWith("t.toml: topology.down:"));
  // Overrides land after the file, so a file mistake is reported first.
  CHECK_THAT(error_of("[nic]\nrx_buffer = \"x\"\n", {"router.vcs=abc"}),
             Catch::StartsWith("t.toml:2:13: nic.rx_buffer:"));
}

TEST_CASE("the built-in machine", "[config][machine]") {
  const MachineConfig def = mgen::config::default_machine();
  const MachineConfig loaded = load_default();
  CHECK(loaded.source == "<built-in>");
  CHECK(loaded.name == def.name);
  CHECK(loaded.network.topology.dims == std::vector<uint32_t>{8, 8, 8});
  CHECK(load_default({"topology.kind=mesh"}).network.topology.kind == "mesh");
  CHECK_THAT(std::string(load_default({"router.vcs=3"}).source), Catch::Equals("<built-in>"));
  try {
    load_default({"router.vcs=1"});
    FAIL("no exception");
  } catch (const Error& e) {
    CHECK(e.where() == "--set router.vcs=1");
    CHECK(e.key() == "router.vcs");
  }
}

TEST_CASE("machine files on disk", "[config][machine]") {
  const auto dir = std::filesystem::temp_directory_path() / "mgen_config_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "m.toml").string();
  {
    std::ofstream out(path);
    out << "[machine]\nname = \"disk\"\n[router]\nvcs = \"x\"\n";
  }
  try {
    load_machine(path);
    FAIL("no exception");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == path + ":4:7: router.vcs: expected an integer, got string \"x\"");
  }
  {
    std::ofstream out(path);
    out << "[machine]\nname = \"disk\"\n";
  }
  const MachineConfig m = load_machine(path, {"router.vcs=3"});
  CHECK(m.name == "disk");
  CHECK(m.source == path);
  CHECK(m.network.router.vcs == 3);

  const std::string missing = (dir / "no_such_machine.toml").string();
  std::filesystem::remove(missing);
  try {
    load_machine(missing);
    FAIL("no exception");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == missing + ": cannot open machine file (No such file or directory)");
    CHECK(e.where() == missing);
  }
  CHECK_THROWS_WITH(load_machine(dir.string()), Catch::Contains("cannot open machine file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("every documented key is read by the loader", "[config][machine]") {
  const auto& keys = key_reference();
  REQUIRE(keys.size() >= 30);
  bool switch_delay = false;
  for (const auto& doc : keys) {
    INFO(doc.key);
    CHECK(std::string(doc.meaning).find('(') != std::string::npos);  // every meaning names its unit
    if (std::string(doc.key) == "router.switch_delay")
      switch_delay = std::string(doc.meaning).find("(time)") != std::string::npos;
    // An inline table suits no key, so each override must fail on its type, not as unknown.
    try {
      load_default({std::string(doc.key) + "={}"});
      FAIL("a table was accepted");
    } catch (const Error& e) {
      CHECK(e.key() == doc.key);
      CHECK_THAT(std::string(e.what()), !Catch::Contains("is not a key") && Catch::Contains("a table"));
    }
  }
  CHECK(switch_delay);
}

TEST_CASE("the machine files in configs/ load and build", "[config][machine]") {
  const std::filesystem::path dir = std::filesystem::path(MGEN_SOURCE_DIR) / "configs";
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".toml") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) WARN("no configs/*.toml yet");
  for (const auto& f : files) {
    INFO(f.string());
    CHECK_NOTHROW(load_machine(f.string()));
  }
}

TEST_CASE("node's by-size tables parse, and bad rows are refused at their line", "[config][machine]") {
  const MachineConfig m = load_machine_text(
      "[node]\nmemory_bandwidth_by_size = [[\"4KiB\", \"8GB/s\"]]\n"
      "copy_gap_by_size = [[65, \"170ns\"], [\"4KiB\", \"1.5us\"]]\n",
      "t.toml");
  REQUIRE(m.node.memory_bandwidth_by_size.size() == 1);
  CHECK(m.node.memory_bandwidth_by_size[0] == std::make_pair(Bytes(4096), Bandwidth::gigabytes_per_second(8)));
  REQUIRE(m.node.copy_gap_by_size.size() == 2);
  CHECK(m.node.copy_gap_by_size[0] == std::make_pair(Bytes(65), Time::ns(170)));
  CHECK(m.node.copy_gap_by_size[1] == std::make_pair(Bytes(4096), Time::ns(1500)));
  const std::string order = error_of("[node]\ncopy_gap_by_size = [[\"4KiB\", \"1us\"], [64, \"1us\"]]\n");
  CHECK_THAT(order, Catch::Contains("t.toml:2"));
  CHECK_THAT(order, Catch::Contains("node.copy_gap_by_size"));
  CHECK_THAT(order, Catch::Contains("sizes must increase"));
  CHECK_THAT(error_of("[node]\ncopy_gap_by_size = [[64, 100]]\n"), Catch::Contains("time"));
  CHECK_THAT(error_of("[node]\ncopy_gap_by_size = \"1us\"\n"), Catch::Contains("[size, time] pairs"));
}
