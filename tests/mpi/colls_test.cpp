// Collectives: every algorithm of every registry at 1, 2, 3, 5, 8, 13 and 64 ranks with real
// data against sequential references computed here; in-place forms, "v" forms with unequal
// and empty blocks, every predefined operation.
#include "colls_common.hpp"

using namespace colls_test;

// ---------------------------------------------------------------- broadcast, reduce, allreduce

TEST_CASE("bcast: every algorithm, sizes, roots, short and long messages", "[colls]") {
  sweep("bcast", &CollectiveConfig::bcast, [](int p) {
    return [p](int rank, int) {
      for (int root : roots_of(p)) {
        for (int count : {0, 3, 1001, 6000}) {  // 6000 ints: rendezvous; 1001: uneven chunks
          std::vector<int> v(static_cast<size_t>(count), -1);
          if (rank == root) {
            for (int i = 0; i < count; ++i)
              v[i] = i * 5 + root;
          }
          REQUIRE(MGEN_Bcast(v.data(), count, MGEN_INT, root, MGEN_COMM_WORLD) == MGEN_SUCCESS);
          bool ok = true;
          for (int i = 0; i < count; ++i)
            ok = ok && v[i] == i * 5 + root;
          CHECK(ok);
        }
      }
    };
  });
}

TEST_CASE("reduce: every algorithm, sizes, roots, in place", "[colls]") {
  sweep("reduce", &CollectiveConfig::reduce, [](int p) {
    return [p](int rank, int) {
      for (int root : roots_of(p)) {
        for (int count : {1, 7, 1000}) {
          std::vector<long long> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), 99);
          for (int i = 0; i < count; ++i)
            in[i] = val(rank, i);
          std::vector<long long> expect(static_cast<size_t>(count));
          for (int i = 0; i < count; ++i)
            expect[i] = sum_over(p, i);
          MGEN_Reduce(in.data(), out.data(), count, MGEN_LONG_LONG, MGEN_SUM, root, MGEN_COMM_WORLD);
          if (rank == root) {
            CHECK(out == expect);
          } else {
            CHECK(out == std::vector<long long>(static_cast<size_t>(count), 99));  // untouched
          }
          // In place at the root: the input is in recvbuf.
          std::vector<double> d(static_cast<size_t>(count));
          for (int i = 0; i < count; ++i)
            d[i] = static_cast<double>(val(rank, i));
          if (rank == root) {
            MGEN_Reduce(MGEN_IN_PLACE, d.data(), count, MGEN_DOUBLE, MGEN_SUM, root, MGEN_COMM_WORLD);
            bool ok = true;
            for (int i = 0; i < count; ++i)
              ok = ok && d[i] == static_cast<double>(expect[i]);
            CHECK(ok);
          } else {
            MGEN_Reduce(d.data(), nullptr, count, MGEN_DOUBLE, MGEN_SUM, root, MGEN_COMM_WORLD);
          }
        }
      }
    };
  });
}

TEST_CASE("allreduce: every algorithm, sizes, in place", "[colls]") {
  sweep("allreduce", &CollectiveConfig::allreduce, [](int p) {
    return [p](int rank, int) {
      for (int count : {0, 1, 5, 13, 1000, 5000}) {  // 5000 long longs: rendezvous
        std::vector<long long> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), 99);
        std::vector<long long> expect(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) {
          in[i] = val(rank, i);
          expect[i] = sum_over(p, i);
        }
        MGEN_Allreduce(in.data(), out.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
        CHECK(out == expect);
        MGEN_Allreduce(MGEN_IN_PLACE, in.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
        CHECK(in == expect);
      }
    };
  });
}

TEST_CASE("allreduce: the same bits on every rank and in every run", "[colls]") {
  // Values whose sums depend on the order of combination: every rank must still get the same
  // bits, and a second run the same as the first.
  for (const std::string& name : algorithms("allreduce")) {
    for (int p : {5, 13}) {
      std::vector<std::vector<double>> first, second;
      auto body = [](std::vector<std::vector<double>>& results) {
        return [&results](int rank, int size) {
          std::vector<double> v(37);
          for (size_t i = 0; i < v.size(); ++i)
            v[i] = 1.0 / (rank + 1.0 + static_cast<double>(i)) + 1e-3 * rank;
          MGEN_Allreduce(MGEN_IN_PLACE, v.data(), 37, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
          if (results.empty()) results.resize(static_cast<size_t>(size));
          results[rank] = v;
        };
      };
      INFO(name << " on " << p << " ranks");
      run_with(p, &CollectiveConfig::allreduce, name, body(first));
      run_with(p, &CollectiveConfig::allreduce, name, body(second));
      for (int r = 0; r < p; ++r) {
        CHECK(std::memcmp(first[r].data(), first[0].data(), 37 * sizeof(double)) == 0);
        CHECK(std::memcmp(first[r].data(), second[r].data(), 37 * sizeof(double)) == 0);
      }
    }
  }
}

// ---------------------------------------------------------------- every predefined operation

namespace {

template <class T>
struct ValueInt {
  T v;
  int i;
  bool operator==(const ValueInt&) const = default;
};
// MGEN_C_BOOL elements (std::vector<bool> has no data()).
struct Bool {
  bool v;
  bool operator==(const Bool&) const = default;
};

// Checks MGEN_Allreduce, MGEN_Reduce (root p - 1) and MGEN_Scan of `op` on `type` against a
// sequential fold with `combine` over inputs gen(rank, i).
template <class T>
void check_op(int rank, int p, MGEN_Datatype type, MGEN_Op op, const std::function<T(int, int)>& gen,
              const std::function<T(T, T)>& combine) {
  constexpr int n = 6;
  std::vector<T> in(n), out(n), expect(n), prefix(n);
  for (int i = 0; i < n; ++i) {
    in[i] = gen(rank, i);
    expect[i] = gen(0, i);
    for (int r = 1; r < p; ++r)
      expect[i] = combine(expect[i], gen(r, i));
    prefix[i] = gen(0, i);
    for (int r = 1; r <= rank; ++r)
      prefix[i] = combine(prefix[i], gen(r, i));
  }
  auto same = [](const std::vector<T>& a, const std::vector<T>& b) { return a == b; };
  INFO("op " << op << " type " << type);
  REQUIRE(MGEN_Allreduce(in.data(), out.data(), n, type, op, MGEN_COMM_WORLD) == MGEN_SUCCESS);
  CHECK(same(out, expect));
  MGEN_Reduce(in.data(), out.data(), n, type, op, p - 1, MGEN_COMM_WORLD);
  if (rank == p - 1) CHECK(same(out, expect));
  MGEN_Scan(in.data(), out.data(), n, type, op, MGEN_COMM_WORLD);
  CHECK(same(out, prefix));
}

template <class T>
ValueInt<T> minloc(ValueInt<T> a, ValueInt<T> b) {
  if (b.v < a.v || (b.v == a.v && b.i < a.i)) return b;
  return a;
}
template <class T>
ValueInt<T> maxloc(ValueInt<T> a, ValueInt<T> b) {
  if (b.v > a.v || (b.v == a.v && b.i < a.i)) return b;
  return a;
}

void every_op(int rank, int p) {
  using I = int;
  auto gi = [](int r, int i) { return static_cast<I>((r * 5 + i * 3) % 7 - 3); };
  auto gp = [](int r, int i) { return static_cast<I>((r + i) % 3 == 0 ? -1 : ((r + i) % 3 == 1 ? 1 : 2)); };
  auto gb = [](int r, int i) { return static_cast<I>(((r * 2 + i) % 4 == 0) ? 0 : r + i + 1); };
  check_op<I>(rank, p, MGEN_INT, MGEN_MAX, gi, [](I a, I b) { return std::max(a, b); });
  check_op<I>(rank, p, MGEN_INT, MGEN_MIN, gi, [](I a, I b) { return std::min(a, b); });
  check_op<I>(rank, p, MGEN_INT, MGEN_SUM, gi, [](I a, I b) { return a + b; });
  check_op<I>(rank, p, MGEN_INT, MGEN_PROD, gp, [](I a, I b) { return a * b; });
  check_op<I>(rank, p, MGEN_INT, MGEN_LAND, gb, [](I a, I b) { return static_cast<I>(a && b); });
  check_op<I>(rank, p, MGEN_INT, MGEN_LOR, gb, [](I a, I b) { return static_cast<I>(a || b); });
  check_op<I>(rank, p, MGEN_INT, MGEN_LXOR, gb, [](I a, I b) { return static_cast<I>(!a != !b); });
  check_op<I>(rank, p, MGEN_INT, MGEN_BAND, gb, [](I a, I b) { return a & b; });
  check_op<I>(rank, p, MGEN_INT, MGEN_BOR, gb, [](I a, I b) { return a | b; });
  check_op<I>(rank, p, MGEN_INT, MGEN_BXOR, gb, [](I a, I b) { return a ^ b; });

  using U = unsigned long long;
  auto gu = [](int r, int i) { return (U{1} << ((r + i) % 60)) | static_cast<U>(r * 131 + i); };
  check_op<U>(rank, p, MGEN_UNSIGNED_LONG_LONG, MGEN_BXOR, gu, [](U a, U b) { return a ^ b; });
  check_op<U>(rank, p, MGEN_UINT64_T, MGEN_BOR, gu, [](U a, U b) { return a | b; });
  check_op<U>(rank, p, MGEN_UNSIGNED_LONG_LONG, MGEN_MAX, gu, [](U a, U b) { return std::max(a, b); });

  using D = double;
  auto gd = [](int r, int i) { return static_cast<D>((r * 3 + i * 5) % 9 - 4); };
  auto gdp = [](int r, int i) { return (r + i) % 4 == 0 ? -2.0 : ((r + i) % 2 ? 1.0 : 0.5); };
  check_op<D>(rank, p, MGEN_DOUBLE, MGEN_MAX, gd, [](D a, D b) { return std::max(a, b); });
  check_op<D>(rank, p, MGEN_DOUBLE, MGEN_MIN, gd, [](D a, D b) { return std::min(a, b); });
  check_op<D>(rank, p, MGEN_DOUBLE, MGEN_SUM, gd, [](D a, D b) { return a + b; });
  check_op<D>(rank, p, MGEN_DOUBLE, MGEN_PROD, gdp, [](D a, D b) { return a * b; });
  using F = float;
  check_op<F>(
      rank, p, MGEN_FLOAT, MGEN_SUM, [](int r, int i) { return static_cast<F>(r - i); },
      [](F a, F b) { return a + b; });

  using B = unsigned char;
  auto gc = [](int r, int i) { return static_cast<B>((r * 37 + i * 11) & 0xff); };
  check_op<B>(rank, p, MGEN_BYTE, MGEN_BXOR, gc, [](B a, B b) { return static_cast<B>(a ^ b); });
  auto gl = [](int r, int i) { return Bool{(r + i) % 3 != 0}; };
  check_op<Bool>(rank, p, MGEN_C_BOOL, MGEN_LAND, gl, [](Bool a, Bool b) { return Bool{a.v && b.v}; });
  check_op<Bool>(rank, p, MGEN_C_BOOL, MGEN_LOR, gl, [](Bool a, Bool b) { return Bool{a.v || b.v}; });
  check_op<Bool>(rank, p, MGEN_C_BOOL, MGEN_LXOR, gl, [](Bool a, Bool b) { return Bool{a.v != b.v}; });

  // MINLOC / MAXLOC with ties: the smaller index wins.
  using DI = ValueInt<double>;
  auto gdi = [](int r, int i) { return DI{static_cast<double>((r * 3 + i) % 4), (r * 7 + i) % 5}; };
  check_op<DI>(rank, p, MGEN_DOUBLE_INT, MGEN_MINLOC, gdi, minloc<double>);
  check_op<DI>(rank, p, MGEN_DOUBLE_INT, MGEN_MAXLOC, gdi, maxloc<double>);
  using II = ValueInt<int>;
  auto gii = [](int r, int i) { return II{(r * 5 + i) % 3, r}; };
  check_op<II>(rank, p, MGEN_2INT, MGEN_MINLOC, gii, minloc<int>);
  check_op<II>(rank, p, MGEN_2INT, MGEN_MAXLOC, gii, maxloc<int>);
}

}  // namespace

TEST_CASE("every predefined operation on several types, every allreduce algorithm", "[colls]") {
  for (const std::string& name : algorithms("allreduce")) {
    for (int p : {1, 3, 8}) {
      INFO(name << " on " << p << " ranks");
      run_with(p, &CollectiveConfig::allreduce, name, every_op);
    }
  }
}

// ---------------------------------------------------------------- gather, scatter

TEST_CASE("gather and gatherv: every algorithm, sizes, roots, in place, unequal blocks", "[colls]") {
  sweep("gather", &CollectiveConfig::gather, [](int p) {
    return [p](int rank, int) {
      for (int root : roots_of(p)) {
        for (int count : {0, 1, 3, 2500}) {  // 2500 ints per rank: rendezvous near the root
          std::vector<int> mine(static_cast<size_t>(count)), all(static_cast<size_t>(count * p), -1);
          for (int i = 0; i < count; ++i)
            mine[i] = rank * 10000 + i;
          std::vector<int> expect(all.size());
          for (int r = 0; r < p; ++r) {
            for (int i = 0; i < count; ++i)
              expect[static_cast<size_t>(r * count + i)] = r * 10000 + i;
          }
          MGEN_Gather(mine.data(), count, MGEN_INT, all.data(), count, MGEN_INT, root, MGEN_COMM_WORLD);
          if (rank == root) CHECK(all == expect);
          // In place at the root: its block is already in recvbuf.
          std::vector<int> again(all.size(), -1);
          if (rank == root) {
            std::copy(mine.begin(), mine.end(), again.begin() + static_cast<ptrdiff_t>(root * count));
            MGEN_Gather(MGEN_IN_PLACE, count, MGEN_INT, again.data(), count, MGEN_INT, root, MGEN_COMM_WORLD);
            CHECK(again == expect);
          } else {
            MGEN_Gather(mine.data(), count, MGEN_INT, nullptr, 0, MGEN_INT, root, MGEN_COMM_WORLD);
          }
        }
        // gatherv: rank r sends r % 3 elements (some empty), placed in reverse order with gaps.
        std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
        int at = 0;
        for (int r = p - 1; r >= 0; --r) {
          counts[r] = r % 3;
          displs[r] = at;
          at += counts[r] + 1;
        }
        std::vector<int> mine(static_cast<size_t>(counts[rank]));
        for (int i = 0; i < counts[rank]; ++i)
          mine[i] = rank * 100 + i;
        std::vector<int> all(static_cast<size_t>(at), -1), expect(static_cast<size_t>(at), -1);
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < counts[r]; ++i)
            expect[static_cast<size_t>(displs[r] + i)] = r * 100 + i;
        }
        MGEN_Gatherv(mine.data(), counts[rank], MGEN_INT, all.data(), counts.data(), displs.data(), MGEN_INT, root,
                     MGEN_COMM_WORLD);
        if (rank == root) CHECK(all == expect);
      }
    };
  });
}

TEST_CASE("scatter and scatterv: every algorithm, sizes, roots, in place, unequal blocks", "[colls]") {
  sweep("scatter", &CollectiveConfig::scatter, [](int p) {
    return [p](int rank, int) {
      for (int root : roots_of(p)) {
        for (int count : {0, 1, 3, 2500}) {
          std::vector<int> all(static_cast<size_t>(count * p)), mine(static_cast<size_t>(count), -1);
          if (rank == root) {
            for (size_t k = 0; k < all.size(); ++k)
              all[k] = static_cast<int>(k) * 3 + root;
          }
          MGEN_Scatter(all.data(), count, MGEN_INT, mine.data(), count, MGEN_INT, root, MGEN_COMM_WORLD);
          bool ok = true;
          for (int i = 0; i < count; ++i)
            ok = ok && mine[i] == (rank * count + i) * 3 + root;
          CHECK(ok);
          // In place at the root: its block stays in sendbuf, recvbuf is MGEN_IN_PLACE.
          if (rank == root) {
            const std::vector<int> before = all;
            MGEN_Scatter(all.data(), count, MGEN_INT, MGEN_IN_PLACE, count, MGEN_INT, root, MGEN_COMM_WORLD);
            CHECK(all == before);
          } else {
            std::fill(mine.begin(), mine.end(), -1);
            MGEN_Scatter(nullptr, 0, MGEN_INT, mine.data(), count, MGEN_INT, root, MGEN_COMM_WORLD);
            ok = true;
            for (int i = 0; i < count; ++i)
              ok = ok && mine[i] == (rank * count + i) * 3 + root;
            CHECK(ok);
          }
        }
        // scatterv: rank r gets (r + 1) % 3 elements (some empty) from gapped, reversed places.
        std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
        int at = 0;
        for (int r = p - 1; r >= 0; --r) {
          counts[r] = (r + 1) % 3;
          displs[r] = at;
          at += counts[r] + 2;
        }
        std::vector<int> all(static_cast<size_t>(at), -7);
        if (rank == root) {
          for (int r = 0; r < p; ++r) {
            for (int i = 0; i < counts[r]; ++i)
              all[static_cast<size_t>(displs[r] + i)] = r * 100 + i;
          }
        }
        std::vector<int> mine(static_cast<size_t>(counts[rank]), -1);
        MGEN_Scatterv(all.data(), counts.data(), displs.data(), MGEN_INT, mine.data(), counts[rank], MGEN_INT, root,
                      MGEN_COMM_WORLD);
        bool ok = true;
        for (int i = 0; i < counts[rank]; ++i)
          ok = ok && mine[i] == rank * 100 + i;
        CHECK(ok);
      }
    };
  });
}

// ---------------------------------------------------------------- allgather, alltoall

TEST_CASE("allgather and allgatherv: every algorithm, sizes, in place, unequal blocks", "[colls]") {
  sweep("allgather", &CollectiveConfig::allgather, [](int p) {
    return [p](int rank, int) {
      for (int count : {0, 1, 3, 700}) {
        std::vector<int> mine(static_cast<size_t>(count)), all(static_cast<size_t>(count * p), -1);
        std::vector<int> expect(all.size());
        for (int i = 0; i < count; ++i)
          mine[i] = rank * 10000 + i;
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < count; ++i)
            expect[static_cast<size_t>(r * count + i)] = r * 10000 + i;
        }
        MGEN_Allgather(mine.data(), count, MGEN_INT, all.data(), count, MGEN_INT, MGEN_COMM_WORLD);
        CHECK(all == expect);
        std::vector<int> again(all.size(), -1);
        std::copy(mine.begin(), mine.end(), again.begin() + static_cast<ptrdiff_t>(rank * count));
        MGEN_Allgather(MGEN_IN_PLACE, 0, MGEN_DATATYPE_NULL, again.data(), count, MGEN_INT, MGEN_COMM_WORLD);
        CHECK(again == expect);
      }
      // allgatherv twice: packed in rank order, then reversed with gaps; blocks of r % 4 (some
      // empty), the second time in place.
      for (bool gaps : {false, true}) {
        std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
        int at = 0;
        for (int k = 0; k < p; ++k) {
          const int r = gaps ? p - 1 - k : k;
          counts[r] = r % 4;
          displs[r] = at;
          at += counts[r] + (gaps ? 1 : 0);
        }
        std::vector<int> mine(static_cast<size_t>(counts[rank]));
        for (int i = 0; i < counts[rank]; ++i)
          mine[i] = rank * 100 + i;
        std::vector<int> all(static_cast<size_t>(at), -1), expect(static_cast<size_t>(at), -1);
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < counts[r]; ++i)
            expect[static_cast<size_t>(displs[r] + i)] = r * 100 + i;
        }
        if (gaps) {
          std::copy(mine.begin(), mine.end(), all.begin() + displs[rank]);
          MGEN_Allgatherv(MGEN_IN_PLACE, 0, MGEN_INT, all.data(), counts.data(), displs.data(), MGEN_INT,
                          MGEN_COMM_WORLD);
        } else {
          MGEN_Allgatherv(mine.data(), counts[rank], MGEN_INT, all.data(), counts.data(), displs.data(), MGEN_INT,
                          MGEN_COMM_WORLD);
        }
        CHECK(all == expect);
      }
    };
  });
}

TEST_CASE("alltoall and alltoallv: every algorithm, sizes, in place, unequal blocks", "[colls]") {
  sweep("alltoall", &CollectiveConfig::alltoall, [](int p) {
    return [p](int rank, int) {
      // Element i of the block from s to d.
      auto item = [](int s, int d, int i) { return s * 1000000 + d * 1000 + i; };
      for (int count : {0, 1, 3, 300}) {
        std::vector<int> out(static_cast<size_t>(count * p)), in(out.size(), -1), expect(out.size());
        for (int d = 0; d < p; ++d) {
          for (int i = 0; i < count; ++i) {
            out[static_cast<size_t>(d * count + i)] = item(rank, d, i);
            expect[static_cast<size_t>(d * count + i)] = item(d, rank, i);
          }
        }
        MGEN_Alltoall(out.data(), count, MGEN_INT, in.data(), count, MGEN_INT, MGEN_COMM_WORLD);
        CHECK(in == expect);
        MGEN_Alltoall(MGEN_IN_PLACE, 0, MGEN_INT, out.data(), count, MGEN_INT, MGEN_COMM_WORLD);
        CHECK(out == expect);
      }
      // alltoallv: s sends (s + d) % 3 elements to d (some empty), blocks reversed with gaps on
      // the receive side; then the same in place.
      auto n = [](int s, int d) { return (s + d) % 3; };
      std::vector<int> sc(static_cast<size_t>(p)), sd(static_cast<size_t>(p)), rc(static_cast<size_t>(p)),
          rd(static_cast<size_t>(p));
      int sat = 0, rat = 0;
      for (int d = 0; d < p; ++d) {
        sc[d] = n(rank, d);
        sd[d] = sat;
        sat += sc[d];
      }
      for (int k = p - 1; k >= 0; --k) {
        rc[k] = n(k, rank);
        rd[k] = rat;
        rat += rc[k] + 1;
      }
      std::vector<int> out(static_cast<size_t>(sat)), in(static_cast<size_t>(rat), -1), expect(in.size(), -1);
      for (int d = 0; d < p; ++d) {
        for (int i = 0; i < sc[d]; ++i)
          out[static_cast<size_t>(sd[d] + i)] = item(rank, d, i);
      }
      for (int s = 0; s < p; ++s) {
        for (int i = 0; i < rc[s]; ++i)
          expect[static_cast<size_t>(rd[s] + i)] = item(s, rank, i);
      }
      MGEN_Alltoallv(out.data(), sc.data(), sd.data(), MGEN_INT, in.data(), rc.data(), rd.data(), MGEN_INT,
                     MGEN_COMM_WORLD);
      CHECK(in == expect);
      // In place: counts are symmetric here ((s + d) % 3), so the receive layout can send.
      std::vector<int> buf(in.size(), -1);
      for (int d = 0; d < p; ++d) {
        for (int i = 0; i < rc[d]; ++i)
          buf[static_cast<size_t>(rd[d] + i)] = item(rank, d, i);
      }
      MGEN_Alltoallv(MGEN_IN_PLACE, nullptr, nullptr, MGEN_INT, buf.data(), rc.data(), rd.data(), MGEN_INT,
                     MGEN_COMM_WORLD);
      CHECK(buf == expect);
    };
  });
}

// ---------------------------------------------------------------- reduce_scatter, scans

TEST_CASE("reduce_scatter and reduce_scatter_block: every algorithm, sizes, in place", "[colls]") {
  sweep("reduce_scatter", &CollectiveConfig::reduce_scatter, [](int p) {
    return [p](int rank, int) {
      // Unequal counts, some empty: rank r gets (r * 5) % 4 elements; then blocks of 0, 1 and 600.
      std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
      int total = 0;
      for (int r = 0; r < p; ++r) {
        counts[r] = (r * 5) % 4;
        displs[r] = total;
        total += counts[r];
      }
      std::vector<long long> in(static_cast<size_t>(total)), out(static_cast<size_t>(counts[rank]), 99);
      for (int i = 0; i < total; ++i)
        in[i] = val(rank, i);
      std::vector<long long> expect(out.size());
      for (int i = 0; i < counts[rank]; ++i)
        expect[i] = sum_over(p, displs[rank] + i);
      MGEN_Reduce_scatter(in.data(), out.data(), counts.data(), MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
      CHECK(out == expect);
      std::vector<long long> inplace = in;
      MGEN_Reduce_scatter(MGEN_IN_PLACE, inplace.data(), counts.data(), MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
      CHECK(std::equal(expect.begin(), expect.end(), inplace.begin()));

      for (int block : {0, 1, 600}) {
        std::vector<double> v(static_cast<size_t>(block * p)), r(static_cast<size_t>(block), 99);
        for (int i = 0; i < block * p; ++i)
          v[i] = static_cast<double>(val(rank, i));
        MGEN_Reduce_scatter_block(v.data(), r.data(), block, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
        bool ok = true;
        for (int i = 0; i < block; ++i)
          ok = ok && r[i] == static_cast<double>(sum_over(p, rank * block + i));
        CHECK(ok);
        MGEN_Reduce_scatter_block(MGEN_IN_PLACE, v.data(), block, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
        ok = true;
        for (int i = 0; i < block; ++i)
          ok = ok && v[i] == static_cast<double>(sum_over(p, rank * block + i));
        CHECK(ok);
      }
    };
  });
}

TEST_CASE("scan and exscan: every algorithm, sizes, in place; exscan leaves rank 0 alone", "[colls]") {
  sweep("scan", &CollectiveConfig::scan, [](int) {
    return [](int rank, int) {
      for (int count : {1, 9, 3000}) {
        std::vector<long long> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), 99);
        std::vector<long long> incl(out.size(), 0), excl(out.size(), 0);
        for (int i = 0; i < count; ++i) {
          in[i] = val(rank, i);
          for (int r = 0; r <= rank; ++r)
            incl[i] += val(r, i);
          excl[i] = incl[i] - val(rank, i);
        }
        MGEN_Scan(in.data(), out.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
        CHECK(out == incl);
        std::vector<long long> v = in;
        MGEN_Scan(MGEN_IN_PLACE, v.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
        CHECK(v == incl);

        std::fill(out.begin(), out.end(), 99);
        MGEN_Exscan(in.data(), out.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
        if (rank == 0) {
          CHECK(out == std::vector<long long>(out.size(), 99));
        } else {
          CHECK(out == excl);
        }
        v = in;
        MGEN_Exscan(MGEN_IN_PLACE, v.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
        CHECK(v == (rank == 0 ? in : excl));
      }
    };
  });
}

// ---------------------------------------------------------------- structure and selection
