/* atexit and on_exit, one list per rank (see getopt.c for how each rank gets its own copy).
 * libc runs its handlers when the process exits, after the simulation; these run when the
 * rank's main returns or it calls exit() (mgen_rank_exit_handlers, called by `mgen run` on the
 * rank), in the reverse order of their registration, and may still call MPI. */
#define _GNU_SOURCE
#include <stdlib.h>

struct handler {
  void (*plain)(void);
  void (*with_status)(int, void*);
  void* arg;
};

static struct {
  struct handler* v;
  size_t n, cap;
} handlers;

static int add_handler(struct handler h) {
  if (handlers.n == handlers.cap) {
    const size_t cap = handlers.cap ? 2 * handlers.cap : 32;
    struct handler* v = (struct handler*)realloc(handlers.v, cap * sizeof *v);
    if (v == NULL) return -1;
    handlers.v = v;
    handlers.cap = cap;
  }
  handlers.v[handlers.n++] = h;
  return 0;
}

int atexit(void (*fn)(void)) {
  const struct handler h = {fn, NULL, NULL};
  return add_handler(h);
}

int on_exit(void (*fn)(int, void*), void* arg) {
  const struct handler h = {NULL, fn, arg};
  return add_handler(h);
}

/* Each handler is taken off the list before it runs, so one that registers more (they run
 * next) or ends the rank with exit() leaves the rest to the next call. */
void mgen_rank_exit_handlers(int status) {
  while (handlers.n > 0) {
    const struct handler h = handlers.v[--handlers.n];
    if (h.plain != NULL) {
      h.plain();
    } else {
      h.with_status(status, h.arg);
    }
  }
}
