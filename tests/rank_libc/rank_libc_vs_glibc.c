/* wrappers/rank_libc against glibc: getopt, getopt_long and getopt_long_only on 100,000 random
 * command lines under 7 option strings (every return value, optind, optarg, optopt, longindex,
 * flag stores and the permuted argv must be glibc's), rand/srand and random/srandom on seeds
 * across the whole unsigned range, strtok on edge cases, and the order of exit handlers.
 * Built with the rank_libc symbols renamed (CMakeLists.txt), so both live in one program. */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char* my_optarg;
extern int my_optind, my_opterr, my_optopt;
int my_getopt(int, char* const*, const char*);
int my_getopt_long(int, char* const*, const char*, const struct option*, int*);
int my_getopt_long_only(int, char* const*, const char*, const struct option*, int*);
int my_rand(void);
void my_srand(unsigned);
long my_random(void);
void my_srandom(unsigned);
char* my_strtok(char*, const char*);
int my_atexit(void (*)(void));
int my_on_exit(void (*)(int, void*), void*);
void my_exit_handlers(int);

static int failures;
#define EXPECT(cond, ...)                                 \
  do {                                                    \
    if (!(cond)) {                                        \
      if (failures++ < 10) fprintf(stderr, __VA_ARGS__); \
    }                                                     \
  } while (0)

static int flag_value;
static const struct option kLong[] = {{"alpha", no_argument, 0, 'a'},      {"beta", required_argument, 0, 'b'},
                                      {"bet", no_argument, &flag_value, 7}, {"gamma", optional_argument, 0, 'g'},
                                      {"gam2", no_argument, 0, 'G'},       {"delta", required_argument, &flag_value, 9},
                                      {"x", no_argument, 0, 'x'},          {0, 0, 0, 0}};
static const char* kWords[] = {"-a",       "-b",      "-bval",   "-ab",    "-ba",     "--alpha", "--al",   "--beta",
                               "--beta=3", "--be",    "--bet",   "--gamma", "--gamma=z", "--gam", "--g",   "--delta",
                               "--delta=4", "--nope", "-z",      "-x",     "-xa",     "file",    "other",  "-",
                               "--",       "-c",      "-cq",     "-q",     "--alpha=1", "-alpha", "-gamma", "-beta",
                               "-g",       "-gq",     "-:",      "--x"};
static const char* kOptstrings[] = {"ab:cg::qx", "+ab:cg::qx", "-ab:cg::qx", ":ab:cg::qx", "+:ab:c", "abx", "-:b:g::"};

/* One parse with each implementation, as a printed trace of every result. */
static void trace_parse(int mine, int mode, int argc, char** argv, const char* os, char* out, size_t cap) {
  out[0] = '\0';
  if (mine) {
    my_optind = 0;
    my_opterr = 0;
  } else {
    optind = 0;
    opterr = 0;
  }
  for (int k = 0; k < 20; ++k) {
    int index = -1, c;
    flag_value = 0;
    if (mine) {
      c = mode == 0 ? my_getopt(argc, argv, os)
          : mode == 1 ? my_getopt_long(argc, argv, os, kLong, &index)
                      : my_getopt_long_only(argc, argv, os, kLong, &index);
    } else {
      c = mode == 0 ? getopt(argc, argv, os)
          : mode == 1 ? getopt_long(argc, argv, os, kLong, &index)
                      : getopt_long_only(argc, argv, os, kLong, &index);
    }
    const char* arg = mine ? my_optarg : optarg;
    const int err = c == '?' || c == ':' ? (mine ? my_optopt : optopt) : 0;
    const size_t used = strlen(out);
    snprintf(out + used, cap - used, "[%d %d %s %d %d %d]", c, mine ? my_optind : optind, arg ? arg : "-", err, index,
             flag_value);
    if (c == -1) break;
  }
  for (int i = 0; i < argc; ++i) {
    strncat(out, " ", cap - strlen(out) - 1);
    strncat(out, argv[i], cap - strlen(out) - 1);
  }
}

static void test_getopt(void) {
  srand(7);
  for (int iter = 0; iter < 100000; ++iter) {
    const int argc = 1 + rand() % 7;
    char *a[9], *b[9];
    a[0] = b[0] = "prog";
    for (int i = 1; i < argc; ++i)
      a[i] = b[i] = (char*)kWords[rand() % (int)(sizeof kWords / sizeof *kWords)];
    a[argc] = b[argc] = NULL;
    const char* os = kOptstrings[rand() % 7];
    const int mode = rand() % 3;
    char want[2048], got[2048];
    trace_parse(0, mode, argc, a, os, want, sizeof want);
    trace_parse(1, mode, argc, b, os, got, sizeof got);
    EXPECT(strcmp(want, got) == 0, "mode %d '%s':\n  glibc %s\n  mine  %s\n", mode, os, want, got);
  }
}

static void test_rand(void) {
  for (int k = 0; k < 100; ++k) /* unseeded: seed 1 */
    EXPECT(rand() == my_rand(), "unseeded rand() #%d\n", k);
  const unsigned seeds[] = {0, 1, 2, 42, 12345, 127773, 2147483646u, 2147483647u, 2147483648u, 3000000000u, UINT_MAX};
  for (size_t s = 0; s < sizeof seeds / sizeof *seeds; ++s) {
    srand(seeds[s]);
    my_srand(seeds[s]);
    for (int k = 0; k < 10000; ++k)
      EXPECT(rand() == my_rand(), "seed %u: rand() #%d\n", seeds[s], k);
    srandom(seeds[s] ^ 77u);
    my_srandom(seeds[s] ^ 77u);
    for (int k = 0; k < 1000; ++k)
      EXPECT(random() == my_random(), "seed %u: random() #%d\n", seeds[s] ^ 77u, k);
  }
}

static void test_strtok(void) {
  const char* cases[] = {"a,b,,c", ",,", "", "abc", ",a,", "x;y;;z;"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    char s1[32], s2[32];
    strcpy(s1, cases[i]);
    strcpy(s2, cases[i]);
    char* t1 = strtok(s1, ",;");
    char* t2 = my_strtok(s2, ",;");
    for (;;) {
      EXPECT((t1 == NULL) == (t2 == NULL) && (t1 == NULL || strcmp(t1, t2) == 0), "strtok '%s'\n", cases[i]);
      if (t1 == NULL || t2 == NULL) break;
      t1 = strtok(NULL, ",;");
      t2 = my_strtok(NULL, ",;");
    }
  }
}

static char order[16];
static void h1(void) { strcat(order, "1"); }
static void h2(int status, void* arg) {
  char s[8];
  snprintf(s, sizeof s, "%s%d", (const char*)arg, status);
  strcat(order, s);
}
static void h3(void) {
  strcat(order, "3");
  my_atexit(h1); /* registered while exiting: runs next */
}

static void test_exit_handlers(void) {
  my_atexit(h1);
  my_on_exit(h2, "s");
  my_atexit(h3);
  my_exit_handlers(4);
  EXPECT(strcmp(order, "31s41") == 0, "exit handlers ran as '%s', not '31s41'\n", order);
  order[0] = '\0';
  my_exit_handlers(0);
  EXPECT(order[0] == '\0', "handlers ran twice\n");
}

int main(void) {
  test_rand(); /* first: it starts unseeded; test_getopt draws its command lines from rand() */
  test_getopt();
  test_strtok();
  test_exit_handlers();
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("rank_libc matches glibc\n");
  return 0;
}
