/* libc_state.c - the libc state a process owns is each rank's own: getopt_long (GNU semantics,
 * as the OSU micro-benchmarks parse their options), strtok, rand/srand, random/srandom, and
 * errno across MPI calls. Under a real MPI every rank is a process; ranks that share one
 * process (mgen's fibers) must behave the same.
 *
 * Every rank parses a command line of its own with getopt_long without resetting optind first
 * (a shared optind would leave ranks after the first with nothing to parse), and interleaves
 * strtok and rand with collectives (other ranks run in between when ranks share a process).
 * The rand values enter the hash: glibc's generator under MPICH, so an implementation must
 * draw the same numbers. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

struct opts {
  int help, version, full, validate, iterations, warmup, verbose;
  long min_size, max_size;
  const char* device;
  const char* tune; /* optional argument */
};

/* The OSU style: short options with arguments, a leading ':' (a missing argument is reported as
 * ':'), long names; '+' (stop at the first non-option) in the second parse. */
static const struct option kLong[] = {{"help", no_argument, 0, 'h'},
                                      {"version", no_argument, 0, 'v'},
                                      {"full", no_argument, 0, 'f'},
                                      {"message-size", required_argument, 0, 'm'},
                                      {"iterations", required_argument, 0, 'i'},
                                      {"warmup", required_argument, 0, 'x'},
                                      {"mem-limit", required_argument, 0, 'M'},
                                      {"validation", no_argument, 0, 'c'},
                                      {"tune", optional_argument, 0, 't'},
                                      {"verbose", no_argument, 0, 'V'},
                                      {0, 0, 0, 0}};

/* Parses argv[0..argc) into o; returns the number of '?' or ':' results. */
static int parse(int argc, char** argv, const char* optstring, struct opts* o, ck_t* h) {
  int bad = 0, c, index;
  memset(o, 0, sizeof *o);
  while ((c = getopt_long(argc, argv, optstring, kLong, &index)) != -1) {
    ck_int(h, c);
    switch (c) {
      case 'h': o->help = 1; break;
      case 'v': o->version = 1; break;
      case 'f': o->full = 1; break;
      case 'c': o->validate = 1; break;
      case 'V': o->verbose = 1; break;
      case 'i': o->iterations = atoi(optarg); break;
      case 'x': o->warmup = atoi(optarg); break;
      case 'M': break;
      case 'd': o->device = optarg; break;
      case 't': o->tune = optarg ? optarg : "default"; break;
      case 'm': {
        char* colon = strchr(optarg, ':');
        o->min_size = strtol(optarg, NULL, 10);
        o->max_size = colon ? strtol(colon + 1, NULL, 10) : o->min_size;
        break;
      }
      case '?':
      case ':': ck_int(h, optopt); ++bad; break;
      default: CHECK(0, "getopt_long returned %d", c);
    }
  }
  return bad;
}

static void test_getopt(int rank, ck_t* h) {
  char m[32], it[16];
  snprintf(m, sizeof m, "%d:%d", 8 * (rank + 1), 1024 * (rank + 1));
  snprintf(it, sizeof it, "-i%d", 100 + rank);
  /* Non-options between options (moved to the end), an attached argument (-i123), a long
   * option with '=', an abbreviation (--mess, --warm), an optional argument given and not,
   * clustered flags (-fV), and "--" ending the options. */
  char* argv[] = {"bench", "first", "-m", m, it, "--warm=7", "second", "-fV", "--tune", "-d", "cuda",
                  "--valid", "--mess", m, "--tune=fast", "--", "-h", "last", NULL};
  const int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
  struct opts o;
  /* No optind reset: a rank's first parse starts at optind 1. */
  CHECK(optind == 1, "rank %d starts with optind %d", rank, optind);
  CHECK(parse(argc, argv, ":hvfm:i:x:M:t::d:cV", &o, h) == 0, "unexpected errors");
  CHECK(o.min_size == 8 * (rank + 1) && o.max_size == 1024 * (rank + 1), "sizes %ld:%ld", o.min_size, o.max_size);
  CHECK(o.iterations == 100 + rank && o.warmup == 7, "iterations %d warmup %d", o.iterations, o.warmup);
  CHECK(o.full && o.verbose && o.validate && !o.help && !o.version, "flags");
  CHECK(o.device && strcmp(o.device, "cuda") == 0, "device");
  CHECK(o.tune && strcmp(o.tune, "fast") == 0, "tune %s", o.tune ? o.tune : "(null)");
  /* The non-options, moved behind the options in their order; "-h" after "--" is one. */
  CHECK(optind == argc - 4, "optind %d of %d", optind, argc);
  CHECK(strcmp(argv[optind], "first") == 0 && strcmp(argv[optind + 1], "second") == 0 &&
            strcmp(argv[optind + 2], "-h") == 0 && strcmp(argv[optind + 3], "last") == 0,
        "non-options %s %s %s %s", argv[optind], argv[optind + 1], argv[optind + 2], argv[optind + 3]);
  ck_int(h, optind);

  MPI_Barrier(MPI_COMM_WORLD); /* other ranks parse in between */

  /* optind = 0 starts over (GNU); '+' stops at the first non-option; errors come back as '?'
   * (unknown option, ambiguous abbreviation) and ':' (missing argument, leading ':'). */
  char* again[] = {"bench", "-z", "--vers", "--it", "5", "stop", "-x", NULL};
  optind = 0;
  opterr = 0;
  CHECK(parse(7, again, "+:hvfm:i:x:M:t::d:cV", &o, h) == 1, "one error before 'stop'");
  CHECK(o.version && o.iterations == 5, "version %d iterations %d", o.version, o.iterations);
  CHECK(optind == 5 && strcmp(again[optind], "stop") == 0, "'+' stops at optind %d", optind);
  char* missing[] = {"bench", "-x", NULL};
  optind = 0;
  CHECK(getopt_long(2, missing, ":x:", kLong, NULL) == ':' && optopt == 'x', "missing argument");
  char* ambiguous[] = {"bench", "--v", NULL}; /* --version or --validation or --verbose */
  optind = 0;
  CHECK(getopt_long(2, ambiguous, "", kLong, NULL) == '?', "ambiguous abbreviation");
  opterr = 1;
  ck_int(h, optind);
}

static void test_strtok(int rank, ck_t* h) {
  char line[128];
  snprintf(line, sizeof line, "rank,%d;;x%d,,,y%d;", rank, rank * 3, rank * 7);
  int n = 0;
  for (char* t = strtok(line, ",;"); t != NULL; t = strtok(NULL, ",;")) {
    ck_str(h, t);
    ++n;
    MPI_Barrier(MPI_COMM_WORLD); /* every rank is between two strtok calls here */
  }
  CHECK(n == 4, "%d tokens", n);
  /* Ranks agree on the number of barriers above (4 each); one more, then empty strings. */
  char empty[] = ",,;";
  CHECK(strtok(empty, ",;") == NULL && strtok(NULL, ",;") == NULL, "only delimiters");
}

static void test_rand(int rank, ck_t* h) {
  /* Before any srand: seed 1, on every rank. */
  const int first = rand();
  MPI_Barrier(MPI_COMM_WORLD);
  int all_first = 0;
  MPI_Allreduce(&first, &all_first, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD);
  CHECK(all_first == first, "rank %d: first rand() %d differs", rank, first);
  ck_int(h, first);
  srand((unsigned)(rank + 1));
  for (int i = 0; i < 5; ++i) {
    ck_int(h, rand());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  srandom(12345u + (unsigned)rank);
  for (int i = 0; i < 3; ++i) {
    ck_i64(h, random());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  /* Reseeding repeats the sequence. */
  srand(99);
  const int a = rand();
  MPI_Barrier(MPI_COMM_WORLD);
  srand(99);
  CHECK(rand() == a, "srand(99) does not repeat");
  ck_int(h, a);
}

static void test_errno(int rank) {
  errno = 0;
  const long v = strtol("99999999999999999999999", NULL, 10); /* ERANGE */
  CHECK(errno == ERANGE && v == LONG_MAX, "strtol overflow");
  if (rank % 2 == 1) errno = EDOM;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(errno == (rank % 2 == 1 ? EDOM : ERANGE), "rank %d: errno %d after MPI_Barrier", rank, errno);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ck_t h = CK_INIT;
  test_getopt(rank, &h);
  test_strtok(rank, &h);
  test_rand(rank, &h);
  test_errno(rank);
  ck_finish(&h, "libc_state");
  MPI_Finalize();
  return 0;
}
