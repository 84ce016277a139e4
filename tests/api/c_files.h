/*
 * File helpers shared by the plain-C conformance tests (each test is one translation unit, so
 * the function is file-static).
 */
#ifndef TRNSIM_TESTS_API_C_FILES_H_
#define TRNSIM_TESTS_API_C_FILES_H_

#include <stdio.h>
#include <stdlib.h>

/* The whole file at `path` in a malloc'ed buffer (its length in *size); NULL when unreadable. */
static inline void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc((size_t)n);
  if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

#endif /* TRNSIM_TESTS_API_C_FILES_H_ */
