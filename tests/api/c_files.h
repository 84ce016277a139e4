/*
 * File helpers shared by the plain-C conformance tests (each test is one translation unit, so
 * the function is file-static).
 */
#ifndef TRNSIM_TESTS_API_C_FILES_H_
#define TRNSIM_TESTS_API_C_FILES_H_

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* mkdir -p: creates `path` and any missing parent; 0 when it exists afterwards, else -1. */
static inline int make_dirs(const char *path) {
  char partial[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof partial) return -1;
  memcpy(partial, path, n + 1);
  for (char *p = partial + 1; *p != '\0'; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(partial, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return (mkdir(partial, 0755) == 0 || errno == EEXIST) ? 0 : -1;
}

#endif /* TRNSIM_TESTS_API_C_FILES_H_ */
