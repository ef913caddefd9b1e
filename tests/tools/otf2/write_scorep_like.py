#!/usr/bin/python3
"""Writes a small Score-P-like OTF2 archive with Python's otf2 bindings (python3-otf2), for
otf2_test.sh: what mgen replay must find in it is known here, independently of mgen.

Usage: write_scorep_like.py DIR [ring|subcomm|split|comm|nbc]
  ring  (default) 4 ranks, as Score-P lays them out (a process location group and one CPU thread
        per rank, a "main" user region around everything, MPI regions with the MPI paradigm):
          MPI_Init; compute 1 ms * (rank + 1);
          MPI_Comm_rank (no events: local);
          a blocking ring: rank r sends 1024 * (r + 1) bytes to r + 1, tag 5 (even ranks send first);
          compute 200 us;
          Irecv + Isend of 65536 bytes to r + 1 (tag 6), then MPI_Waitall completing both;
          MPI_Allreduce of 64 bytes (Score-P's sizes: 4 x 64 sent and received);
          compute 50 us; MPI_Barrier; MPI_Finalize.
        Timer: 1 ns per tick, a global offset of 10^15 ticks (as a real clock has).
  subcomm the same start, then MPI_Comm_split as Score-P writes it (a CREATE_HANDLE collective
        on MPI_COMM_WORLD, CommCreate of "half 0" = ranks 0, 1 or "half 1" = ranks 2, 3), then on
        the half: its rank 0 sends 777 bytes to its rank 1 (tag 3), an Allreduce of 32 bytes;
  split the same start, then an MPI_Comm_split region without those events and an MPI_Send on a
        communicator of ranks 0 and 1;
  comm  the same without the MPI_Comm_split region (the communicator made before the trace).
  nbc   the same start, then an MPI_Iallreduce (a non-blocking collective request).
Prints the expected totals as JSON on standard output.
"""
import json
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm, RegionRole

RANKS = 4
OFFSET = 10**15
MS, US = 1_000_000, 1_000  # ticks (ns)
NO_ROOT = 2**32 - 1  # OTF2_UNDEFINED_UINT32


def main():
    out, kind = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "ring"
    expect = {"compute_ns": [], "sends": [], "isends": []}
    with otf2.writer.open(out, timer_resolution=10**9) as trace:
        defs = trace.definitions
        machine = defs.system_tree_node("machine")
        node = defs.system_tree_node("node", parent=machine)
        groups = [defs.location_group(f"MPI Rank {r}", location_group_type=LocationGroupType.PROCESS,
                                      system_tree_parent=node) for r in range(RANKS)]
        locations = [defs.location(f"Master thread {r}", type=LocationType.CPU_THREAD, group=groups[r])
                     for r in range(RANKS)]
        writers = [trace.event_writer_from_location(loc) for loc in locations]
        world_locations = defs.group("world locations", group_type=GroupType.COMM_LOCATIONS,
                                     paradigm=Paradigm.MPI, members=locations)
        world_group = defs.group("world group", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                 members=list(range(RANKS)))
        world = defs.comm("MPI_COMM_WORLD", group=world_group)
        half = defs.comm("split half", group=defs.group("half", group_type=GroupType.COMM_GROUP,
                                                         paradigm=Paradigm.MPI, members=[0, 1]))
        halves = [defs.comm(f"half {h}", group=defs.group(f"half {h}", group_type=GroupType.COMM_GROUP,
                                                           paradigm=Paradigm.MPI, members=[2 * h, 2 * h + 1]))
                  for h in range(2)]
        del world_locations

        def region(name, role=RegionRole.FUNCTION, paradigm=Paradigm.MPI):
            return defs.region(name, region_role=role, paradigm=paradigm)

        main_r = region("main", paradigm=Paradigm.USER)
        init, fin = region("MPI_Init"), region("MPI_Finalize")
        comm_rank = region("MPI_Comm_rank")
        send, recv = region("MPI_Send", RegionRole.POINT2POINT), region("MPI_Recv", RegionRole.POINT2POINT)
        isend, irecv = region("MPI_Isend", RegionRole.POINT2POINT), region("MPI_Irecv", RegionRole.POINT2POINT)
        waitall = region("MPI_Waitall", RegionRole.POINT2POINT)
        allreduce = region("MPI_Allreduce", RegionRole.COLL_ALL2ALL)
        iallreduce = region("MPI_Iallreduce", RegionRole.COLL_ALL2ALL)
        barrier = region("MPI_Barrier", RegionRole.BARRIER)
        split = region("MPI_Comm_split", RegionRole.FUNCTION)

        for r, w in enumerate(writers):
            t = OFFSET + 1000 * r
            computed = 0

            def call(reg, body=None, length=2 * US):
                nonlocal t
                w.enter(t, reg)
                if body:
                    body(t + length // 2)
                t += length
                w.leave(t, reg)

            def compute(ns):
                nonlocal t, computed
                t += ns
                computed += ns

            w.enter(t, main_r)
            t += 10 * US  # before MPI_Init: computation too
            computed += 10 * US
            call(init)
            compute(MS * (r + 1))
            call(comm_rank)
            compute(3 * US)  # the time in MPI_Comm_rank above (2 us) counts as computation as well
            computed += 2 * US
            nxt, prv = (r + 1) % RANKS, (r - 1) % RANKS
            mine, theirs = 1024 * (r + 1), 1024 * (prv + 1)
            do_send = lambda: call(send, lambda at: w.mpi_send(at, nxt, world, 5, mine))
            do_recv = lambda: call(recv, lambda at: w.mpi_recv(at, prv, world, 5, theirs))
            if kind == "ring":
                if r % 2 == 0:
                    do_send(); compute(US); do_recv()
                else:
                    do_recv(); compute(US); do_send()
                compute(200 * US)
                call(irecv, lambda at: w.mpi_irecv_request(at, 100 + r))
                call(isend, lambda at: w.mpi_isend(at, nxt, world, 6, 65536, 200 + r))

                def complete(at):
                    w.mpi_irecv(at, prv, world, 6, 65536, 100 + r)
                    w.mpi_isend_complete(at, 200 + r)
                call(waitall, complete)

                def coll(op, sent, received):
                    def body(at):
                        w.mpi_collective_begin(at)
                        w.mpi_collective_end(at + 1, op, world, NO_ROOT, sent, received)
                    return body
                call(allreduce, coll(CollectiveOp.ALLREDUCE, 4 * 64, 4 * 64))
                compute(50 * US)
                call(barrier, coll(CollectiveOp.BARRIER, 0, 0))
                expect["sends"].append([nxt, mine])
                expect["isends"].append([nxt, 65536])
            elif kind == "subcomm":
                mine_half = halves[r // 2]

                def made(at):
                    w.mpi_collective_begin(at)
                    w.comm_create(at, mine_half)
                    w.mpi_collective_end(at + 1, CollectiveOp.CREATE_HANDLE, world, NO_ROOT, 0, 0)
                call(split, made)
                compute(7 * US)
                if r % 2 == 0:
                    call(send, lambda at: w.mpi_send(at, 1, mine_half, 3, 777))
                    expect["sends"].append([r + 1, 777])
                else:
                    call(recv, lambda at: w.mpi_recv(at, 0, mine_half, 3, 777))

                def reduce(at):
                    w.mpi_collective_begin(at)
                    w.mpi_collective_end(at + 1, CollectiveOp.ALLREDUCE, mine_half, NO_ROOT, 2 * 32, 2 * 32)
                call(allreduce, reduce)
            elif kind in ("split", "comm"):
                if kind == "split":
                    call(split)
                if r < 2:
                    call(send, lambda at: w.mpi_send(at, 1 - r, half, 5, 64))
            elif kind == "nbc":
                call(iallreduce, lambda at: w.non_blocking_collective_request(at, 7))
            call(fin)
            w.leave(t + 5 * US, main_r)
            expect["compute_ns"].append(computed)
    print(json.dumps(expect))


if __name__ == "__main__":
    main()
