/* strtok, one copy per rank: its saved position is per process under MPI, and ranks are
 * fibers of one process (see getopt.c for how each rank gets its own copy). */
#include <string.h>

/* Named by mgen-cc's -u in sanitizer builds: there the sanitizer's runtime, linked ahead of
 * everything, defines strtok too, so nothing else would pull this member out of the archive and
 * the ranks would share libc's position (found by libc_state under ASan). */
const char mgen_rank_strtok = 0;

char* strtok(char* s, const char* delim) {
  static char* rest;
  if (s == NULL) s = rest;
  if (s == NULL) return NULL;
  s += strspn(s, delim);
  if (*s == '\0') {
    rest = NULL;
    return NULL;
  }
  char* end = s + strcspn(s, delim);
  if (*end == '\0') {
    rest = NULL;
  } else {
    *end = '\0';
    rest = end + 1;
  }
  return s;
}
