/*
 * A model loaded from a NEFF file with zero-filled device tensors bound to every input and
 * output, for the plain-C conformance tests that only need something to execute (each test is
 * one translation unit, so the functions are file-static).
 */
#ifndef TRNSIM_TESTS_API_C_MODEL_H_
#define TRNSIM_TESTS_API_C_MODEL_H_

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <stdlib.h>
#include <string.h>

#include "c_files.h"

#define C_MODEL_MAX_TENSORS 16

typedef struct {
  nrt_model_t *model;
  nrt_tensor_set_t *inputs;
  nrt_tensor_set_t *outputs;
  nrt_tensor_t *tensors[C_MODEL_MAX_TENSORS];
  int tensor_count;
} c_model_t;

/* Loads `neff_path` on `vnc` and binds zeroed device tensors; NRT_SUCCESS or the first error. */
static inline NRT_STATUS c_model_load(c_model_t *m, const char *neff_path, int vnc) {
  memset(m, 0, sizeof(*m));
  size_t size = 0;
  void *neff = read_file(neff_path, &size);
  if (neff == NULL) return NRT_INVALID;
  NRT_STATUS status = nrt_load(neff, size, vnc, -1, &m->model);
  free(neff);
  if (status != NRT_SUCCESS) return status;
  nrt_tensor_info_array_t *info = NULL;
  if ((status = nrt_get_model_tensor_info(m->model, &info)) != NRT_SUCCESS) return status;
  nrt_allocate_tensor_set(&m->inputs);
  nrt_allocate_tensor_set(&m->outputs);
  for (uint64_t i = 0; i < info->tensor_count && m->tensor_count < C_MODEL_MAX_TENSORS; ++i) {
    const nrt_tensor_info_t *t = &info->tensor_array[i];
    nrt_tensor_t *tensor = NULL;
    status = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, t->size, t->name, &tensor);
    if (status != NRT_SUCCESS) break;
    nrt_tensor_memset(tensor, 0, 0, t->size);
    nrt_add_tensor_to_tensor_set(t->usage == NRT_TENSOR_USAGE_INPUT ? m->inputs : m->outputs,
                                 t->name, tensor);
    m->tensors[m->tensor_count++] = tensor;
  }
  nrt_free_model_tensor_info(info);
  return status;
}

static inline NRT_STATUS c_model_execute(const c_model_t *m) {
  return nrt_execute(m->model, m->inputs, m->outputs);
}

static inline void c_model_free(c_model_t *m) {
  for (int i = 0; i < m->tensor_count; ++i) nrt_tensor_free(&m->tensors[i]);
  nrt_destroy_tensor_set(&m->inputs);
  nrt_destroy_tensor_set(&m->outputs);
  if (m->model != NULL) nrt_unload(m->model);
  memset(m, 0, sizeof(*m));
}

/* How many times `needle` occurs in the NUL-terminated file at `path` (-1: unreadable). */
static inline int c_count_in_file(const char *path, const char *needle) {
  size_t size = 0;
  char *data = read_file(path, &size);
  if (data == NULL) return -1;
  char *text = realloc(data, size + 1);
  if (text == NULL) {
    free(data);
    return -1;
  }
  text[size] = '\0';
  int count = 0;
  for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle)) ++count;
  free(text);
  return count;
}

#endif /* TRNSIM_TESTS_API_C_MODEL_H_ */
