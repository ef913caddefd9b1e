/* globals_b.c - second translation unit of globals.c: globals defined here and reached from
 * globals.c through extern declarations, plus a file-static variable behind a function. */

int gb_counter = 7;                        /* initialised, external linkage */
double gb_table[4] = {0.5, 1.5, 2.5, 3.5}; /* initialised array, external linkage */
static int gb_hidden = 100;                /* file-static, only reachable via gb_bump */

int gb_bump(int by) {
  gb_hidden += by;
  return gb_hidden;
}
