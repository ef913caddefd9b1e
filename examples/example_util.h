/* example_util.h — small helpers shared by the example MGEN programs: a table-driven option
 * parser that prints usage from rank 0, a clean way to stop the whole job on a bad argument,
 * and gathering one number per rank to rank 0 with point-to-point messages (so that the
 * examples need no collective beyond MGEN_Barrier).
 *
 * Everything is static: each example is one translation unit and includes this once.
 */
#ifndef MGEN_EXAMPLE_UTIL_H
#define MGEN_EXAMPLE_UTIL_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgen.h"

/* Tag reserved for the helpers' own messages; examples use tags below it. */
#define EX_TAG_GATHER 32000

static inline int ex_rank(void) {
  int r = 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &r);
  return r;
}

static inline int ex_size(void) {
  int s = 0;
  MGEN_Comm_size(MGEN_COMM_WORLD, &s);
  return s;
}

/* ---- options ------------------------------------------------------------------------ */

enum ex_kind {
  EX_FLAG,   /* --name: sets an int to 1 */
  EX_INT,    /* --name N: a long long, with an optional K, M or G suffix (powers of 1024) */
  EX_DOUBLE, /* --name X: a double, with an optional k, M, G or T suffix (powers of 1000) */
  EX_STRING  /* --name S: a const char* pointing into argv */
};

typedef struct ex_option {
  const char* name; /* without the leading "--" */
  enum ex_kind kind;
  void* value; /* int* for EX_FLAG, long long* for EX_INT, double* for EX_DOUBLE, const char** */
  const char* help;
} ex_option;

typedef struct ex_program {
  const char* name;
  const char* summary;
  const ex_option* options;
  int count;
} ex_program;

static inline void ex_usage(const ex_program* p, FILE* out) {
  int i;
  fprintf(out, "usage: mgen run -n N [mgen options] %s [options]\n%s\noptions:\n", p->name, p->summary);
  for (i = 0; i < p->count; ++i) {
    const ex_option* o = &p->options[i];
    char left[64];
    snprintf(left, sizeof left, "--%s%s", o->name,
             o->kind == EX_FLAG ? "" : (o->kind == EX_INT ? " N" : (o->kind == EX_DOUBLE ? " X" : " S")));
    fprintf(out, "  %-22s %s", left, o->help);
    if (o->kind == EX_INT) fprintf(out, " (default %lld)", *(long long*)o->value);
    if (o->kind == EX_DOUBLE) fprintf(out, " (default %g)", *(double*)o->value);
    if (o->kind == EX_STRING && *(const char**)o->value) fprintf(out, " (default %s)", *(const char**)o->value);
    fprintf(out, "\n");
  }
  fprintf(out, "  %-22s %s\n", "--help", "print this and exit");
}

/* Stops the whole job: rank 0 prints the message (with the usage when `usage` is set, else a
 * pointer to --help), then aborts; the other ranks wait in a barrier that the abort ends, so
 * the message is printed once and `mgen run` exits non-zero (3). */
static inline void ex_vdie(const ex_program* p, int usage, const char* fmt, va_list ap) {
  if (ex_rank() == 0) {
    fprintf(stderr, "%s: error: ", p->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    if (usage) {
      ex_usage(p, stderr);
    } else {
      fprintf(stderr, "(%s --help lists the options)\n", p->name);
    }
    fflush(stdout);
    fflush(stderr);
    MGEN_Abort(MGEN_COMM_WORLD, 1);
  }
  MGEN_Barrier(MGEN_COMM_WORLD);
  MGEN_Abort(MGEN_COMM_WORLD, 1); /* not reached: rank 0 aborted the job */
}

/* A bad argument value or a rank count the program cannot use. */
static inline void ex_die(const ex_program* p, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ex_vdie(p, 0, fmt, ap);
  va_end(ap);
}

/* A command line that does not parse: the message and the usage. */
static inline void ex_die_usage(const ex_program* p, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ex_vdie(p, 1, fmt, ap);
  va_end(ap);
}

static inline int ex_parse_int(const char* s, long long* out) {
  char* end;
  long long v;
  long long mult = 1;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (end == s || errno != 0) return 0;
  if (*end == 'k' || *end == 'K') {
    mult = 1024LL;
    ++end;
  } else if (*end == 'm' || *end == 'M') {
    mult = 1024LL * 1024;
    ++end;
  } else if (*end == 'g' || *end == 'G') {
    mult = 1024LL * 1024 * 1024;
    ++end;
  }
  if (*end == 'i' && mult > 1) ++end; /* KiB-style spelling: 4Mi */
  if (*end == 'B' && mult > 1) ++end; /* 4MiB, 4MB */
  if (*end != '\0') return 0;
  if (v > LLONG_MAX / mult || v < LLONG_MIN / mult) return 0;
  *out = v * mult;
  return 1;
}

static inline int ex_parse_double(const char* s, double* out) {
  char* end;
  double v;
  errno = 0;
  v = strtod(s, &end);
  if (end == s || errno != 0) return 0;
  if (*end == 'k') {
    v *= 1e3;
    ++end;
  } else if (*end == 'M') {
    v *= 1e6;
    ++end;
  } else if (*end == 'G') {
    v *= 1e9;
    ++end;
  } else if (*end == 'T') {
    v *= 1e12;
    ++end;
  }
  if (*end != '\0' || v != v) return 0;
  *out = v;
  return 1;
}

/* Parses argv[1..] against the table. Accepts "--name value" and "--name=value". Returns 1
 * to go on, 0 after --help (usage printed by rank 0: the caller returns 0). An unknown option,
 * a missing or malformed value or a positional argument stops the job with ex_die. */
static inline int ex_parse(const ex_program* p, int argc, char** argv) {
  int i, k;
  /* --help first, so that the defaults it shows are not yet overwritten. */
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (ex_rank() == 0) ex_usage(p, stdout);
      return 0;
    }
  }
  for (i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const char* eq;
    size_t len;
    const ex_option* o = NULL;
    const char* value = NULL;
    if (strncmp(arg, "--", 2) != 0) ex_die_usage(p, "unexpected argument '%s'", arg);
    arg += 2;
    eq = strchr(arg, '=');
    len = eq ? (size_t)(eq - arg) : strlen(arg);
    for (k = 0; k < p->count; ++k) {
      if (strlen(p->options[k].name) == len && strncmp(p->options[k].name, arg, len) == 0) o = &p->options[k];
    }
    if (o == NULL) ex_die_usage(p, "unknown option '%s'", argv[i]);
    if (o->kind == EX_FLAG) {
      if (eq) ex_die_usage(p, "option --%s takes no value", o->name);
      *(int*)o->value = 1;
      continue;
    }
    if (eq) {
      value = eq + 1;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      ex_die_usage(p, "option --%s needs a value", o->name);
    }
    if (o->kind == EX_STRING) {
      *(const char**)o->value = value;
    } else if (o->kind == EX_INT ? !ex_parse_int(value, (long long*)o->value)
                                 : !ex_parse_double(value, (double*)o->value)) {
      ex_die_usage(p, "option --%s: '%s' is not a%s number", o->name, value, o->kind == EX_INT ? "n integer" : "");
    }
  }
  return 1;
}

/* ---- results to rank 0 -------------------------------------------------------------- */

/* Every rank passes `n` doubles; rank 0 gets, element by element, the minimum, the sum and
 * the maximum over all ranks (any of the out pointers may be NULL; others get nothing). This
 * is plain point-to-point after the measured part of a program, so it does not disturb the
 * measurement. */
static inline void ex_gather_stats(const double* mine, int n, double* min, double* sum, double* max) {
  int rank = ex_rank(), size = ex_size(), src, i;
  if (rank != 0) {
    MGEN_Send(mine, n, MGEN_DOUBLE, 0, EX_TAG_GATHER, MGEN_COMM_WORLD);
    return;
  }
  double* in = (double*)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  for (i = 0; i < n; ++i) {
    if (min) min[i] = mine[i];
    if (sum) sum[i] = mine[i];
    if (max) max[i] = mine[i];
  }
  for (src = 1; src < size; ++src) {
    MGEN_Recv(in, n, MGEN_DOUBLE, src, EX_TAG_GATHER, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    for (i = 0; i < n; ++i) {
      if (min && in[i] < min[i]) min[i] = in[i];
      if (sum) sum[i] += in[i];
      if (max && in[i] > max[i]) max[i] = in[i];
    }
  }
  free(in);
}

/* The same for one number. */
static inline void ex_gather_stat(double mine, double* min, double* sum, double* max) {
  ex_gather_stats(&mine, 1, min, sum, max);
}

/* Seconds in a readable unit, into buf. */
static inline const char* ex_time(double s, char* buf, size_t len) {
  if (s >= 1.0) {
    snprintf(buf, len, "%.6f s", s);
  } else if (s >= 1e-3) {
    snprintf(buf, len, "%.6f ms", s * 1e3);
  } else {
    snprintf(buf, len, "%.4f us", s * 1e6);
  }
  return buf;
}

#endif /* MGEN_EXAMPLE_UTIL_H */
