// The [host] table (Breaking Band, ICPP 2019): every component is required, bad values are
// reported at their line, and with derive = true the MPI overheads and the NIC, link and switch
// latencies come from it. Expected positions are counted by hand (lines and columns from 1).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "mgen/config/machine.hpp"

using mgen::config::Error;
using mgen::config::load_machine;
using mgen::config::load_machine_text;
using mgen::config::MachineConfig;
using mgen::simcore::Time;

namespace {

// Table 1 of the paper as a [host] table; line 1 is "[host]", md_setup is on line 2.
const std::string kHost = R"([host]
md_setup = "27.78ns"
md_barrier = "17.33ns"
dbc_barrier = "21.07ns"
pio_copy = "94.25ns"
llp_post_misc = "14.99ns"
llp_prog = "61.63ns"
busy_post = "8.99ns"
measurement_update = "49.69ns"
pcie = "137.49ns"
wire = "274.81ns"
switch = "108ns"
rc_to_mem = "240.96ns"
mpich_isend = "24.37ns"
ucp_isend = "2.19ns"
mpich_irecv_callback = "47.99ns"
ucp_irecv_callback = "139.78ns"
mpich_after_progress = "36.89ns"
post_prog = "59.82ns"
busy_post_amortized = "3.17ns"
)";

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_machine_text(text, "t.toml", overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a machine without [host] keeps its MPI and NIC values and has no breakdown", "[config][host]") {
  const MachineConfig def = mgen::config::default_machine();
  const MachineConfig m = load_machine_text("[mpi]\nsend_overhead = \"300ns\"\n", "t.toml");
  CHECK_FALSE(m.host.has_value());
  CHECK(m.mpi.send_overhead == Time::ns(300));
  CHECK(m.mpi.recv_overhead == def.mpi.recv_overhead);
  CHECK(m.mpi.send_progress_overhead == Time::zero());
  CHECK(m.network.nic.dma_latency == def.network.nic.dma_latency);
  CHECK(m.network.nic.link_latency == def.network.nic.link_latency);
  CHECK(m.network.router.switch_delay == def.network.router.switch_delay);
  CHECK(load_machine_text("[mpi]\nsend_progress_overhead = \"5ns\"\n", "t.toml").mpi.send_progress_overhead ==
        Time::ns(5));
}

TEST_CASE("[host] keys land in HostConfig exactly, to the picosecond", "[config][host]") {
  const MachineConfig m = load_machine_text(kHost + "unsignaled_interval = 32\nderive = false\n", "t.toml");
  REQUIRE(m.host.has_value());
  const mgen::host::HostConfig& h = *m.host;
  CHECK(h.md_setup == Time::ps(27780));
  CHECK(h.md_barrier == Time::ps(17330));
  CHECK(h.dbc_barrier == Time::ps(21070));
  CHECK(h.pio_copy == Time::ps(94250));
  CHECK(h.llp_post_misc == Time::ps(14990));
  CHECK(h.llp_prog == Time::ps(61630));
  CHECK(h.busy_post == Time::ps(8990));
  CHECK(h.measurement_update == Time::ps(49690));
  CHECK(h.pcie == Time::ps(137490));
  CHECK(h.wire == Time::ps(274810));
  CHECK(h.switch_ == Time::ps(108000));
  CHECK(h.rc_to_mem == Time::ps(240960));
  CHECK(h.mpich_isend == Time::ps(24370));
  CHECK(h.ucp_isend == Time::ps(2190));
  CHECK(h.mpich_irecv_callback == Time::ps(47990));
  CHECK(h.ucp_irecv_callback == Time::ps(139780));
  CHECK(h.mpich_after_progress == Time::ps(36890));
  CHECK(h.post_prog == Time::ps(59820));
  CHECK(h.busy_post_amortized == Time::ps(3170));
  CHECK(h.unsignaled_interval == 32);
  CHECK_FALSE(h.derive);
  // derive = false: the simulation keeps the file's (here the built-in) overheads.
  const MachineConfig def = mgen::config::default_machine();
  CHECK(m.mpi.send_overhead == def.mpi.send_overhead);
  CHECK(m.network.nic.dma_latency == def.network.nic.dma_latency);
}

TEST_CASE("derive = true sets the overheads and latencies from the paper's components", "[config][host]") {
  const MachineConfig m = load_machine_text(
      kHost + "[router]\nrouting_delay = \"8ns\"\nvc_alloc_delay = \"0ns\"\nswitch_alloc_delay = \"0ns\"\n", "t.toml");
  REQUIRE(m.host.has_value());
  CHECK(m.host->derive);
  // Breaking Band §6: Post = HLP_post + LLP_post = 26.56 + 175.42 ns.
  CHECK(m.mpi.send_overhead == Time::ps(201980));
  // LLP_prog + HLP_rx_prog = 61.63 + 224.66 ns (§4.1, §6).
  CHECK(m.mpi.recv_overhead == Time::ps(286290));
  // Post_prog + Misc = 59.82 + 3.17 ns (§6).
  CHECK(m.mpi.send_progress_overhead == Time::ps(62990));
  // PCIe + RC-to-MEM(8B) / 2 = 137.49 + 120.48 ns on each side; Wire / 2 on each NIC link.
  CHECK(m.network.nic.dma_latency == Time::ps(257970));
  CHECK(m.network.nic.link_latency == Time::ps(137405));
  // Switch = 108 ns is the router's whole pipeline: the traversal gets what routing leaves.
  CHECK(m.network.router.routing_delay == Time::ns(8));
  CHECK(m.network.router.switch_delay == Time::ns(100));
  // --set reaches the derived values too: a simulated what-if of §7.2's 30 ns switch.
  const MachineConfig fast = load_machine_text(kHost, "t.toml", {"host.switch=\"30ns\""});
  CHECK(mgen::net::head_delay(fast.network.router) == Time::ns(30));
}

TEST_CASE("the thunderx2-cx4 preset holds Table 1", "[config][host]") {
  const MachineConfig m = load_machine(std::string(MGEN_SOURCE_DIR) + "/configs/thunderx2-cx4.toml");
  REQUIRE(m.host.has_value());
  CHECK(m.name == "thunderx2-cx4");
  CHECK(m.network.topology.kind == "crossbar");
  CHECK(m.network.topology.crossbar_nodes == 2);
  CHECK(m.host->pio_copy == Time::ps(94250));
  CHECK(m.mpi.send_overhead == Time::ps(201980));
}

TEST_CASE("[host] mistakes are reported at their line", "[config][host]") {
  // A missing component names the table's line and what is missing.
  CHECK_THAT(error_of("[host]\nmd_setup = \"27.78ns\"\n"),
             Catch::StartsWith("t.toml:1:1: host: a breakdown needs every component") &&
                 Catch::Contains("md_barrier") && Catch::Contains("busy_post_amortized") && !Catch::Contains("derive"));
  // A bare number is not a time (line 5: pio_copy, col 12: its value).
  std::string bad = kHost;
  bad.replace(bad.find("\"94.25ns\""), 9, "94.25");
  CHECK_THAT(error_of(bad), Catch::StartsWith("t.toml:5:12: host.pio_copy: expected a time string"));
  // Typos are caught with the usual suggestion.
  CHECK_THAT(error_of(kHost + "pio_cpy = \"1ns\"\n"), Catch::Contains("host.pio_cpy") && Catch::Contains("pio_copy"));
  // c = 0 is meaningless (line 21).
  CHECK_THAT(error_of(kHost + "unsignaled_interval = 0\n"),
             Catch::StartsWith("t.toml:21:23: host.unsignaled_interval: must be at least 1"));
  // Post_prog cannot be smaller than its LLP share LLP_prog / c (line 19).
  CHECK_THAT(error_of(kHost + "unsignaled_interval = 1\n"), Catch::StartsWith("t.toml:19:13: host.post_prog:"));
  // With derive = true a derived key written by hand is a conflict, at its own line (22).
  CHECK_THAT(error_of(kHost + "[mpi]\nsend_overhead = \"1ns\"\n"),
             Catch::StartsWith("t.toml:22:17: mpi.send_overhead: is derived from [host]"));
  CHECK_THAT(error_of(kHost, {"nic.link_latency=\"5ns\""}),
             Catch::StartsWith("--set nic.link_latency=\"5ns\"") && Catch::Contains("is derived from [host]"));
  CHECK(error_of(kHost + "derive = false\n[mpi]\nsend_overhead = \"1ns\"\n").empty());
  // The switch cannot be faster than the router stages the file gives (line 12: switch).
  CHECK_THAT(error_of(kHost + "[router]\nrouting_delay = \"200ns\"\n"),
             Catch::StartsWith("t.toml:12:10: host.switch: 108 ns is less than"));
  // --set on a machine without [host] makes a partial table: every component is still required.
  CHECK_THAT(error_of("", {"host.switch=\"30ns\""}), Catch::Contains("host: a breakdown needs every component"));
}
