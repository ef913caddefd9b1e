/* errclass.c - user-defined error classes, codes and strings (MPI_Add_error_*): MPI_Error_class
 * maps codes to their classes, MPI_Error_string gives the added strings (the empty string when
 * none was added), MPI_LASTUSEDCODE follows, codes may join predefined classes, and user error
 * handlers receive them (MPI_Comm_call_errhandler), also through the MPI-1 names
 * MPI_Errhandler_create/set/get. Deleting them (MPIX_Delete_error_*) is MPICH's extension. */
#include "check.h"

static int handled = 0, handled_code = 0;
static void handler(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  handled++;
  handled_code = *code;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;

  int* last = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
  CHECK(flag && *last >= MPI_ERR_LASTCODE, "LASTUSEDCODE %d", flag ? *last : -1);
  const int last0 = *last;

  int cls[3], codes[3][2], out = -1, len = -1;
  char s[MPI_MAX_ERROR_STRING];
  for (int i = 0; i < 3; i++) {
    MPI_Add_error_class(&cls[i]);
    CHECK(cls[i] > MPI_ERR_LASTCODE, "new class %d", cls[i]);
    MPI_Error_class(cls[i], &out);
    CHECK(out == cls[i], "class of a class: %d", out);
    s[0] = '@';
    MPI_Error_string(cls[i], s, &len);
    CHECK(len == 0 && s[0] == '\0', "string of a new class: '%s'", s);
    for (int j = 0; j < 2; j++) {
      MPI_Add_error_code(cls[i], &codes[i][j]);
      char text[64];
      snprintf(text, sizeof text, "error %d of class %d", j, i);
      MPI_Add_error_string(codes[i][j], text);
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 2; j++) {
      MPI_Error_class(codes[i][j], &out);
      CHECK(out == cls[i], "class of code %d/%d: %d", i, j, out);
      MPI_Error_string(codes[i][j], s, &len);
      char text[64];
      snprintf(text, sizeof text, "error %d of class %d", j, i);
      CHECK(strcmp(s, text) == 0 && len == (int)strlen(text), "string '%s'", s);
      ck_bytes(&h, s, (size_t)len);
      for (int k = 0; k < 3; k++)
        for (int m = 0; m < 2; m++)
          CHECK((i == k && j == m) || codes[i][j] != codes[k][m], "codes repeat");
    }
  }
  /* A string for a class (one that is kept: MPICH 4.0.2 frees such a string twice when the
   * class is deleted). */
  int named = 0;
  MPI_Add_error_class(&named);
  MPI_Add_error_string(named, "class one");
  MPI_Error_string(named, s, &len);
  CHECK(strcmp(s, "class one") == 0, "class string '%s'", s);
  ck_bytes(&h, s, (size_t)len);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
  CHECK(*last > last0 && *last >= named, "LASTUSEDCODE %d after adding classes up to %d", *last, named);

  /* A code of a predefined class. */
  int argcode = 0;
  MPI_Add_error_code(MPI_ERR_ARG, &argcode);
  MPI_Error_class(argcode, &out);
  CHECK(out == MPI_ERR_ARG && argcode != MPI_ERR_ARG, "code of MPI_ERR_ARG: class %d", out);

  /* User handlers see the codes, through the MPI-1 names too. */
  MPI_Errhandler eh, got;
  MPI_Errhandler_create(handler, &eh);
  MPI_Errhandler_set(MPI_COMM_WORLD, eh);
  MPI_Errhandler_get(MPI_COMM_WORLD, &got);
  CHECK(got == eh, "Errhandler_get");
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, codes[2][1]);
  CHECK(handled == 1 && handled_code == codes[2][1], "handler called %d times with %d", handled, handled_code);
  MPI_Errhandler_free(&eh);
  MPI_Errhandler_free(&got);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Deleting: strings, then codes, then classes. (Deleting a class that still has codes is an
   * error in MPI-4.1 and under mgen; MPICH 4.0.2 accepts it, so it is not checked here.) */
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 2; j++) {
      CHECK_MPI(MPIX_Delete_error_string(codes[i][j]));
      CHECK_MPI(MPIX_Delete_error_code(codes[i][j]));
    }
    CHECK_MPI(MPIX_Delete_error_class(cls[i]));
  }
  int again = 0;
  MPI_Add_error_class(&again);
  CHECK(again == cls[0], "a deleted class number is reused: %d, first was %d", again, cls[0]);

  ck_int(&h, size);
  ck_finish(&h, "errclass");
  MPI_Finalize();
  return 0;
}
