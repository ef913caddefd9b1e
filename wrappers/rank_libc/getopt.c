/* getopt, getopt_long and getopt_long_only with GNU semantics, one copy per rank.
 *
 * Ranks are fibers of one process, so libc's option parser (optind, optarg and its hidden
 * scan position) would be shared: the first rank parses the command line and every other rank
 * finds optind past the end and runs with default options. This file is linked into each
 * recompiled program (mgen-cc, mgen_add_program ... MPI); `mgen run` loads a private copy of the
 * program per rank and -Bsymbolic binds the program's references to these definitions, so each
 * rank parses its own argv from the start.
 *
 * Written from the documented behaviour (POSIX getopt; glibc's manual and getopt(3)):
 * argument permutation (non-options move to the end unless the option string starts with '+' or
 * POSIXLY_CORRECT is set; '-' returns them as the argument of option 1), "--" ends the options,
 * "::" optional arguments, a leading ':' reports a missing argument as ':' without messages,
 * long options as --name, --name=value or --name value, unique abbreviations, -name for
 * getopt_long_only, and optind = 0 restarts the scan. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char* optarg;
int optind = 1;
int opterr = 1;
int optopt = '?';

enum ordering { kPermute, kRequireOrder, kReturnInOrder };

/* Where the scan is: the rest of the current cluster of short options (-abc), and the block of
 * non-options already skipped, [first_nonopt, last_nonopt), that permutation moves behind the
 * options found after it. */
static struct {
  int initialized;
  const char* nextchar;
  int first_nonopt, last_nonopt;
} scan;

static int is_nonoption(char* const* argv, int i) {
  return argv[i][0] != '-' || argv[i][1] == '\0';
}

static void reverse(char** v, int from, int to) { /* [from, to) */
  for (--to; from < to; ++from, --to) {
    char* t = v[from];
    v[from] = v[to];
    v[to] = t;
  }
}

/* Moves the skipped non-options [first_nonopt, last_nonopt) after the options found since,
 * [last_nonopt, optind), keeping both blocks in order (a rotation by three reversals). */
static void exchange(char** argv) {
  const int f = scan.first_nonopt, l = scan.last_nonopt, o = optind;
  reverse(argv, f, l);
  reverse(argv, l, o);
  reverse(argv, f, o);
  scan.first_nonopt = f + (o - l);
  scan.last_nonopt = o;
}

static int missing_argument_code(const char* optstring) {
  return optstring[0] == ':' ? ':' : '?';
}

/* A long option at scan.nextchar (after "--", or "-" for getopt_long_only). Returns the value
 * to return, or -2 when getopt_long_only should read the element as short options instead. */
static int long_option(int argc, char** argv, const char* optstring, const struct option* longopts, int* longindex,
                       int long_only, int print_errors, const char* prefix) {
  const char* name = scan.nextchar;
  const char* end = name;
  while (*end != '\0' && *end != '=')
    ++end;
  const size_t len = (size_t)(end - name);
  const struct option* found = NULL;
  int index = -1, ambiguous = 0;
  for (int i = 0; longopts[i].name != NULL; ++i) {
    const struct option* p = &longopts[i];
    if (strncmp(p->name, name, len) != 0) continue;
    if (strlen(p->name) == len) { /* an exact match wins over abbreviations */
      found = p;
      index = i;
      ambiguous = 0;
      break;
    }
    if (found == NULL) {
      found = p;
      index = i;
    } else if (found->has_arg != p->has_arg || found->flag != p->flag || found->val != p->val) {
      ambiguous = 1; /* two different options share this prefix */
    }
  }
  if (ambiguous) {
    if (print_errors) {
      fprintf(stderr, "%s: option '%s%.*s' is ambiguous; possibilities:", argv[0], prefix, (int)len, name);
      for (int i = 0; longopts[i].name != NULL; ++i) {
        if (strncmp(longopts[i].name, name, len) == 0) fprintf(stderr, " '%s%s'", prefix, longopts[i].name);
      }
      fputc('\n', stderr);
    }
    scan.nextchar = NULL;
    ++optind;
    optopt = 0;
    return '?';
  }
  if (found == NULL) {
    /* getopt_long_only: "-x..." that is no long option may still be short options. */
    if (long_only && argv[optind][1] != '-' && strchr(optstring, *scan.nextchar) != NULL) return -2;
    if (print_errors) fprintf(stderr, "%s: unrecognized option '%s%s'\n", argv[0], prefix, name);
    scan.nextchar = NULL;
    ++optind;
    optopt = 0;
    return '?';
  }
  ++optind;
  scan.nextchar = NULL;
  if (*end == '=') {
    if (found->has_arg == no_argument) {
      if (print_errors) fprintf(stderr, "%s: option '%s%s' doesn't allow an argument\n", argv[0], prefix, found->name);
      optopt = found->val;
      return '?';
    }
    optarg = (char*)end + 1;
  } else if (found->has_arg == required_argument) {
    if (optind >= argc) {
      if (print_errors) fprintf(stderr, "%s: option '%s%s' requires an argument\n", argv[0], prefix, found->name);
      optopt = found->val;
      return missing_argument_code(optstring);
    }
    optarg = argv[optind++];
  }
  if (longindex != NULL) *longindex = index;
  if (found->flag != NULL) {
    *found->flag = found->val;
    return 0;
  }
  return found->val;
}

static int parse(int argc, char* const* cargv, const char* optstring, const struct option* longopts, int* longindex,
                 int long_only, int posix) {
  char** argv = (char**)cargv; /* GNU getopt permutes argv despite the const */
  if (argc < 1) return -1;
  optarg = NULL;
  enum ordering order = kPermute;
  if (*optstring == '-') {
    order = kReturnInOrder;
    ++optstring;
  } else if (*optstring == '+') {
    order = kRequireOrder;
    ++optstring;
  } else if (posix || getenv("POSIXLY_CORRECT") != NULL) {
    order = kRequireOrder;
  }
  const int print_errors = opterr && *optstring != ':';
  if (optind == 0 || !scan.initialized) {
    if (optind == 0) optind = 1;
    scan.first_nonopt = scan.last_nonopt = optind;
    scan.nextchar = NULL;
    scan.initialized = 1;
  }
  if (scan.nextchar == NULL || *scan.nextchar == '\0') {
    /* The program may have moved optind back: the skipped block cannot lie beyond it. */
    if (scan.last_nonopt > optind) scan.last_nonopt = optind;
    if (scan.first_nonopt > optind) scan.first_nonopt = optind;
    if (order == kPermute) {
      if (scan.first_nonopt != scan.last_nonopt && scan.last_nonopt != optind) {
        exchange(argv);
      } else if (scan.last_nonopt != optind) {
        scan.first_nonopt = optind;
      }
      while (optind < argc && is_nonoption(argv, optind))
        ++optind;
      scan.last_nonopt = optind;
    }
    if (optind != argc && strcmp(argv[optind], "--") == 0) {
      ++optind;
      if (scan.first_nonopt != scan.last_nonopt && scan.last_nonopt != optind) {
        exchange(argv);
      } else if (scan.first_nonopt == scan.last_nonopt) {
        scan.first_nonopt = optind;
      }
      scan.last_nonopt = argc;
      optind = argc;
    }
    if (optind == argc) {
      /* Done: optind names the first non-option (they were moved to the end). */
      if (scan.first_nonopt != scan.last_nonopt) optind = scan.first_nonopt;
      return -1;
    }
    if (is_nonoption(argv, optind)) {
      if (order == kRequireOrder) return -1;
      optarg = argv[optind++];
      return 1;
    }
    if (longopts != NULL) {
      if (argv[optind][1] == '-') {
        scan.nextchar = argv[optind] + 2;
        return long_option(argc, argv, optstring, longopts, longindex, long_only, print_errors, "--");
      }
      if (long_only && (argv[optind][2] != '\0' || strchr(optstring, argv[optind][1]) == NULL)) {
        scan.nextchar = argv[optind] + 1;
        const int code = long_option(argc, argv, optstring, longopts, longindex, long_only, print_errors, "-");
        if (code != -2) return code;
      }
    }
    scan.nextchar = argv[optind] + 1;
  }
  /* The next short option of the current element. */
  const char c = *scan.nextchar++;
  const char* spec = c == ':' || c == '\0' ? NULL : strchr(optstring, c);
  if (*scan.nextchar == '\0') ++optind;
  if (spec == NULL) {
    if (print_errors) fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], c);
    optopt = (unsigned char)c;
    return '?';
  }
  if (spec[1] == ':') {
    if (spec[2] == ':') { /* optional: only when attached (-ovalue) */
      if (*scan.nextchar != '\0') {
        optarg = (char*)scan.nextchar;
        ++optind;
      }
    } else if (*scan.nextchar != '\0') {
      optarg = (char*)scan.nextchar;
      ++optind;
    } else if (optind == argc) {
      if (print_errors) fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv[0], c);
      optopt = (unsigned char)c;
      scan.nextchar = NULL;
      return missing_argument_code(optstring);
    } else {
      optarg = argv[optind++];
    }
    scan.nextchar = NULL;
  }
  return (unsigned char)c;
}

int getopt(int argc, char* const* argv, const char* optstring) {
  return parse(argc, argv, optstring, NULL, NULL, 0, 0);
}

/* What <unistd.h> calls getopt when a strict POSIX mode is asked for (-std=c11 with
 * _POSIX_C_SOURCE): no permutation. */
int __posix_getopt(int argc, char* const* argv, const char* optstring) {
  return parse(argc, argv, optstring, NULL, NULL, 0, 1);
}

int getopt_long(int argc, char* const* argv, const char* optstring, const struct option* longopts, int* longindex) {
  return parse(argc, argv, optstring, longopts, longindex, 0, 0);
}

int getopt_long_only(int argc, char* const* argv, const char* optstring, const struct option* longopts,
                     int* longindex) {
  return parse(argc, argv, optstring, longopts, longindex, 1, 0);
}
