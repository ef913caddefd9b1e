// Keys that describe another kind of topology than the one chosen are refused where they were
// written (they used to be read and ignored), and the BeforeBuild hook sees the machine before
// it is built, with sizes that agree with the built topology. Positions counted by hand.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "mgen/config/machine.hpp"
#include "mgen/net/topology.hpp"
#include "mgen/net/topology_size.hpp"

using mgen::config::Error;
using mgen::config::load_default;
using mgen::config::load_machine_text;
using mgen::config::MachineConfig;

namespace {

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_machine_text(text, "t.toml", overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("keys of another topology kind are refused at their line", "[config][machine]") {
  // `down` (line 3) on the default torus; the key's own column.
  CHECK(error_of("[topology]\ndims = [4, 4]\ndown = [4, 4]\n") ==
        "t.toml:3:1: topology.down: is a key of a fat tree, but topology.kind is \"torus\"; remove it, or set the "
        "kind it describes");
  CHECK(error_of("[topology]\nkind = \"fattree\"\nk = 4\nlevels = 2\nchannels = [2]\n") ==
        "t.toml:5:1: topology.channels: is a key of a torus or mesh, but topology.kind is \"fattree\"; remove it, or "
        "set the kind it describes");
  // The first such key in file order is named.
  CHECK_THAT(error_of("[topology]\nkind = \"crossbar\"\nnodes = 4\nnodes_per_router = 2\nup = [1]\n"),
             Catch::StartsWith("t.toml:4:1: topology.nodes_per_router: is a key of a torus or mesh"));
  CHECK_THAT(error_of("[topology]\nkind = \"mesh\"\nnodes = 4\n"),
             Catch::StartsWith("t.toml:3:1: topology.nodes: is a key of a crossbar, but topology.kind is \"mesh\""));
  // From an override, the override is named.
  CHECK_THAT(
      error_of("", {"topology.k=4"}),
      Catch::StartsWith("--set topology.k=4: topology.k: is a key of a fat tree, but topology.kind is \"torus\""));
  // A kind and its own keys, shared keys (link_bandwidth) on any kind, and an unknown kind (left
  // to the builder) are fine or reported as before.
  CHECK(error_of("[topology]\nkind = \"mesh\"\ndims = [4]\nchannels = [2]\nnodes_per_router = 2\n").empty());
  CHECK(error_of("[topology]\nkind = \"crossbar\"\nnodes = 4\nlink_bandwidth = \"4GB/s\"\n").empty());
  CHECK_THAT(error_of("[topology]\nkind = \"ring\"\ndown = [4]\n"),
             Catch::StartsWith("t.toml:2:8: topology.kind: unknown topology 'ring'"));
  // The default machine's own struct defaults (dims) do not count as written keys.
  CHECK(load_default({"topology.kind=fattree", "topology.k=4", "topology.levels=2"}).network.topology.down.size() == 2);
}

TEST_CASE("the BeforeBuild hook sees the machine, and topology_size agrees with the build", "[config][machine]") {
  int calls = 0;
  const auto count = [&](const MachineConfig& m) {
    ++calls;
    CHECK(m.network.topology.dims == std::vector<uint32_t>{4, 4});
  };
  load_default({"topology.dims=[4,4]"}, count);
  CHECK(calls == 1);
  // What it throws passes through untouched, before anything is built.
  struct Refused {};
  CHECK_THROWS_AS(load_default({"topology.dims=[4,4]"}, [](const MachineConfig&) { throw Refused{}; }), Refused);
  // An invalid topology is reported by the config layer, not given to the hook.
  CHECK_THROWS_AS(load_default({"topology.dims=[4,0]"}, [](const MachineConfig&) { FAIL("hook called"); }), Error);

  for (const std::vector<std::string>& set : std::vector<std::vector<std::string>>{
           {},
           {"topology.dims=[5,3,2]", "topology.channels=[2,1,3]", "topology.nodes_per_router=3"},
           {"topology.kind=mesh", "topology.dims=[7,1]", "nic.nics_per_node=2"},
           {"topology.kind=fattree", "topology.down=[4,3,2]", "topology.up=[2,3]"},
           {"topology.kind=fattree", "topology.k=4", "topology.levels=3", "nic.nics_per_node=2"},
           {"topology.kind=crossbar", "topology.nodes=17"}}) {
    const MachineConfig m = load_default(set);
    const mgen::net::Topology t = mgen::net::Topology::build(m.network);
    const mgen::net::TopologySize s = mgen::net::topology_size(m.network);
    CHECK(s.routers == t.routers());
    CHECK(s.ports == t.total_ports());
    CHECK(s.nodes == t.nodes());
    CHECK(s.endpoints == t.endpoints());
  }
}
