// A recompiled MPI program started by itself (`./app args`, as configure scripts and users
// do with mpicc's output) runs as a one-rank job: `mgen run -n 1 -q ./app args`, like an
// MPICH singleton. mgen-cc links programs as shared objects that `mgen run` loads; this file
// gives that object what the kernel needs to start it too: the dynamic linker's name in
// .interp, and an entry point (mgen-cc passes -e mgen_direct_run). The dynamic linker
// initialises libc before it jumps here, but the stack is aligned as for _start, not as for a
// call, and there is no argc/argv to receive: they are read back from /proc/self/cmdline.
// The mgen it runs under is $MGEN_RUNNER, else the one beside the libmgen.so the program
// loaded (build tree, or an installed prefix wherever it was moved), else the build's own.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define MGEN_DYNAMIC_LINKER "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define MGEN_DYNAMIC_LINKER "/lib/ld-linux-aarch64.so.1"
#endif

#ifdef MGEN_DYNAMIC_LINKER
__attribute__((used, section(".interp"))) const char mgen_interp[] = MGEN_DYNAMIC_LINKER;
#endif

#ifndef MGEN_RUNNER
#define MGEN_RUNNER "mgen"
#endif

#ifndef MGEN_LIB_TO_BIN
#define MGEN_LIB_TO_BIN "../bin"
#endif

struct runner_search {
  char path[PATH_MAX];
  int found;
};

// The mgen beside the libmgen.so this program loaded: in the build tree they share a directory;
// installed, mgen is in MGEN_LIB_TO_BIN relative to the library's (so a relocated prefix works).
static int find_runner_by_library(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct runner_search* s = data;
  const char* name = info->dlpi_name;
  const char* base = name ? strrchr(name, '/') : NULL;
  if (base == NULL || strcmp(base, "/libmgen.so") != 0) return 0;
  const int dir = (int)(base - name);
  const char* tries[] = {"/mgen", "/" MGEN_LIB_TO_BIN "/mgen"};
  for (size_t i = 0; i < sizeof tries / sizeof tries[0]; ++i) {
    snprintf(s->path, sizeof s->path, "%.*s%s", dir, name, tries[i]);
    struct stat st;
    if (stat(s->path, &st) == 0 && S_ISREG(st.st_mode) && access(s->path, X_OK) == 0) {
      s->found = 1;
      return 1;
    }
  }
  return 0;
}

// Reads all of /proc/self/cmdline (NUL-separated arguments) into a malloc'd buffer.
static char* read_cmdline(size_t* len) {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t cap = 4096, n = 0;
  char* buf = malloc(cap);
  for (;;) {
    if (buf == NULL) break;
    if (n == cap) {
      char* grown = realloc(buf, cap *= 2);
      if (grown == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    n += (size_t)got;
  }
  close(fd);
  *len = n;
  return buf;
}

__attribute__((noreturn, force_align_arg_pointer, visibility("default"))) void mgen_direct_run(void) {
  size_t len = 0;
  char* cmdline = read_cmdline(&len);
  char exe[PATH_MAX];
  ssize_t exe_len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (cmdline == NULL || exe_len <= 0) {
    fprintf(stderr, "this program was built with mgen-cc: run it with `mgen run -n N PROGRAM`\n");
    _exit(127);
  }
  exe[exe_len] = '\0';
  size_t args = 0;
  for (size_t i = 0; i < len; ++i) args += cmdline[i] == '\0';
  // mgen run -n 1 -q EXE ARG1..ARGn NULL: the program's own argv[0] is dropped for EXE.
  char** argv = calloc(args + 6, sizeof *argv);
  const char* runner = getenv("MGEN_RUNNER");
  static struct runner_search beside;
  if (runner == NULL || runner[0] == '\0') {
    dl_iterate_phdr(find_runner_by_library, &beside);
    runner = beside.found ? beside.path : MGEN_RUNNER;
  }
  size_t k = 0;
  argv[k++] = (char*)runner;
  argv[k++] = "run";
  argv[k++] = "-n";
  argv[k++] = "1";
  argv[k++] = "-q";
  argv[k++] = exe;
  size_t start = strnlen(cmdline, len) + 1;  // past argv[0]
  for (size_t i = start; i < len; i += strlen(cmdline + i) + 1) argv[k++] = cmdline + i;
  argv[k] = NULL;
  execvp(runner, argv);
  fprintf(stderr, "%s: built with mgen-cc, so it runs under mgen, but %s cannot be started (%s): run it with `mgen run -n N %s`\n",
          exe, runner, strerror(errno), exe);
  _exit(127);
}
