/*
 * trnsim — conformance test of model loading through the installed libnrt, as a plain C11
 * client: nrt_load / nrt_unload / the model queries / nrt_get_model_tensor_info.
 *
 *   c_load_test [--wrong-lnc NEFF] NEFF EXPECT [NEFF EXPECT]...
 *
 * Each NEFF is loaded and its tensor info checked against EXPECT (written by
 * independent_neff_writer.py):
 *     lnc N
 *     foreign 0|1
 *     tensor NAME USAGE SIZE DTYPE NDIM DIM...   (NDIM -1: shape not checked)
 * --wrong-lnc names a NEFF compiled for another LNC than the environment's, which must be
 * refused. Bad inputs, double unload and calls outside init..close are checked too.
 * Last line: "N passed, M failed"; exit status 0 only when M is 0.
 */
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_status.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_check.h"

/* --- Files ----------------------------------------------------------------------------- */

typedef struct {
  unsigned char *bytes;
  size_t size;
} blob_t;

static blob_t read_file(const char *path) {
  blob_t b = {NULL, 0};
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    printf("FAIL cannot open %s\n", path);
    ++failed;
    return b;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.bytes = malloc(n > 0 ? (size_t)n : 1);
  b.size = fread(b.bytes, 1, (size_t)n, f);
  fclose(f);
  return b;
}

enum { kMaxTensors = 16, kMaxDims = 8 };
typedef struct {
  char name[256];
  int usage;
  unsigned long long size;
  int dtype;
  int ndim; /* -1: shape not checked */
  unsigned dims[kMaxDims];
} expected_tensor_t;

typedef struct {
  int lnc;
  int foreign;
  int count;
  expected_tensor_t tensors[kMaxTensors];
} expectation_t;

static bool read_expectation(const char *path, expectation_t *e) {
  memset(e, 0, sizeof(*e));
  FILE *f = fopen(path, "r");
  if (f == NULL) return false;
  char word[32];
  while (fscanf(f, "%31s", word) == 1) {
    if (strcmp(word, "lnc") == 0) {
      if (fscanf(f, "%d", &e->lnc) != 1) break;
    } else if (strcmp(word, "foreign") == 0) {
      if (fscanf(f, "%d", &e->foreign) != 1) break;
    } else if (strcmp(word, "tensor") == 0 && e->count < kMaxTensors) {
      expected_tensor_t *t = &e->tensors[e->count++];
      if (fscanf(f, "%255s %d %llu %d %d", t->name, &t->usage, &t->size, &t->dtype, &t->ndim) != 5)
        break;
      for (int i = 0; i < t->ndim && i < kMaxDims; ++i) {
        if (fscanf(f, "%u", &t->dims[i]) != 1) break;
      }
    }
  }
  fclose(f);
  return e->count > 0;
}

/* --- Checks ---------------------------------------------------------------------------- */

static uint64_t bytes_used(uint32_t vnc) {
  nrt_vnc_memory_stats_t stats;
  size_t out = 0;
  if (nrt_get_vnc_memory_stats(vnc, &stats, sizeof(stats), &out) != NRT_SUCCESS) return ~0ull;
  return stats.bytes_used;
}

/* The block is one allocation: an 8-byte count, then 296-byte entries. */
static void check_tensor_info(nrt_model_t *model, const expectation_t *e) {
  nrt_tensor_info_array_t *info = NULL;
  EXPECT_EQ(nrt_get_model_tensor_info(model, &info), NRT_SUCCESS);
  if (info == NULL) return;
  EXPECT_EQ(info->tensor_count, e->count);
  EXPECT_EQ(sizeof(nrt_tensor_info_t), 296);
  EXPECT_EQ(offsetof(nrt_tensor_info_array_t, tensor_array), 8);
  for (int i = 0; i < e->count && (uint64_t)i < info->tensor_count; ++i) {
    const nrt_tensor_info_t *t = &info->tensor_array[i];
    const expected_tensor_t *want = &e->tensors[i];
    EXPECT_EQ((const char *)t - (const char *)info, 8 + 296 * i);
    EXPECT_TRUE(memchr(t->name, '\0', sizeof(t->name)) != NULL);
    if (strcmp(t->name, want->name) != 0) {
      printf("FAIL tensor %d: name '%s', want '%s'\n", i, t->name, want->name);
      ++failed;
    } else {
      ++passed;
    }
    EXPECT_EQ(t->usage, want->usage);
    EXPECT_EQ(t->size, want->size);
    EXPECT_EQ(t->dtype, want->dtype);
    if (want->ndim < 0) continue;
    EXPECT_EQ(t->ndim, want->ndim);
    EXPECT_TRUE(t->ndim == 0 || t->shape != NULL);
    for (int d = 0; d < want->ndim && (uint32_t)d < t->ndim && t->shape != NULL; ++d) {
      EXPECT_EQ(t->shape[d], want->dims[d]);
    }
  }
  EXPECT_EQ(nrt_free_model_tensor_info(info), NRT_SUCCESS);
}

static void check_model(const char *neff_path, const char *expect_path) {
  expectation_t e;
  if (!read_expectation(expect_path, &e)) {
    printf("FAIL cannot read %s\n", expect_path);
    ++failed;
    return;
  }
  blob_t neff = read_file(neff_path);
  if (neff.bytes == NULL) return;
  printf("-- %s (lnc %d, foreign %d, %d tensors)\n", neff_path, e.lnc, e.foreign, e.count);

  nrt_model_t *model = NULL;
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, -1, -1, &model), NRT_SUCCESS);
  if (model == NULL) {
    free(neff.bytes);
    return;
  }
  nrt_model_info_t info;
  size_t info_size = 0;
  memset(&info, 0xAB, sizeof(info));
  EXPECT_EQ(nrt_get_model_info(model, &info, sizeof(info), &info_size), NRT_SUCCESS);
  EXPECT_EQ(info_size, sizeof(info));
  uint32_t vnc = info.vnc;
  uint32_t visible = 0;
  EXPECT_EQ(nrt_get_visible_vnc_count(&visible), NRT_SUCCESS);
  EXPECT_TRUE(vnc < visible);
  /* Version tolerance: a larger caller struct gets 4 bytes; a 2-byte one only 2. */
  unsigned char big[16], small[4];
  memset(big, 0xCD, sizeof(big));
  EXPECT_EQ(nrt_get_model_info(model, (nrt_model_info_t *)big, sizeof(big), &info_size),
            NRT_SUCCESS);
  EXPECT_EQ(info_size, 4);
  EXPECT_EQ(big[4], 0xCD);
  memset(small, 0xCD, sizeof(small));
  EXPECT_EQ(nrt_get_model_info(model, (nrt_model_info_t *)small, 2, &info_size), NRT_SUCCESS);
  EXPECT_EQ(info_size, 2);
  EXPECT_EQ(small[2], 0xCD);
  EXPECT_EQ(nrt_get_model_info(model, NULL, 4, &info_size), NRT_INVALID);
  EXPECT_EQ(nrt_get_model_info(model, &info, 4, NULL), NRT_INVALID);

  uint32_t n = 0;
  EXPECT_EQ(nrt_get_model_vnc_count(model, &n), NRT_SUCCESS);
  EXPECT_EQ(n, 1);
  n = 0;
  EXPECT_EQ(nrt_get_model_nc_count(model, &n), NRT_SUCCESS);
  EXPECT_EQ(n, 1);
  n = 0;
  EXPECT_EQ(nrt_get_model_instance_count(model, &n), NRT_SUCCESS);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(nrt_get_model_vnc_count(model, NULL), NRT_INVALID);

  EXPECT_TRUE(bytes_used(vnc) > 0);
  check_tensor_info(model, &e);

  nrt_tensor_set_t *in = NULL, *out = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&in), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&out), NRT_SUCCESS);
  if (e.foreign) EXPECT_EQ(nrt_execute(model, in, out), NRT_INVALID);
  EXPECT_EQ(nrt_execute(model, NULL, out), NRT_INVALID);
  nrt_destroy_tensor_set(&in);
  nrt_destroy_tensor_set(&out);

  /* Loading the same bytes on an explicit core, and as a collectives NEFF. */
  nrt_model_t *again = NULL;
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, (int32_t)(visible - 1), 1, &again), NRT_SUCCESS);
  EXPECT_EQ(nrt_unload(again), NRT_SUCCESS);
  /* A collective NEFF needs NEURON_RT_ROOT_COMM_ID, unset here. */
  again = NULL;
  EXPECT_EQ(nrt_load_collectives(neff.bytes, neff.size, 0, -1, 0, 1, &again), NRT_INVALID);
  EXPECT_TRUE(again == NULL);

  uint64_t before = bytes_used(vnc);
  EXPECT_EQ(nrt_unload(model), NRT_SUCCESS);
  EXPECT_TRUE(bytes_used(vnc) < before);
  EXPECT_EQ(bytes_used(vnc), 0);
  EXPECT_EQ(nrt_unload(model), NRT_INVALID_HANDLE);
  nrt_tensor_info_array_t *stale = NULL;
  EXPECT_EQ(nrt_get_model_tensor_info(model, &stale), NRT_INVALID_HANDLE);
  EXPECT_TRUE(stale == NULL);
  EXPECT_EQ(nrt_get_model_vnc_count(model, &n), NRT_INVALID_HANDLE);
  free(neff.bytes);
}

/* NULL, 0 bytes, garbage, truncation, bad core arguments: all NRT_INVALID, nothing loaded. */
static void check_bad_inputs(const char *neff_path) {
  blob_t neff = read_file(neff_path);
  if (neff.bytes == NULL) return;
  nrt_model_t *model = NULL;
  EXPECT_EQ(nrt_load(NULL, neff.size, 0, -1, &model), NRT_INVALID);
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, 0, -1, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_load(neff.bytes, 0, 0, -1, &model), NRT_INVALID);
  unsigned char garbage[4096];
  for (size_t i = 0; i < sizeof(garbage); ++i) garbage[i] = (unsigned char)(i * 131 + 7);
  EXPECT_EQ(nrt_load(garbage, sizeof(garbage), 0, -1, &model), NRT_INVALID);
  EXPECT_EQ(nrt_load(neff.bytes, 100, 0, -1, &model), NRT_INVALID);            /* in the header */
  EXPECT_EQ(nrt_load(neff.bytes, neff.size / 2, 0, -1, &model), NRT_INVALID);  /* in the tar */
  EXPECT_EQ(nrt_load(neff.bytes, neff.size - 1, 0, -1, &model), NRT_INVALID);
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, 4096, -1, &model), NRT_INVALID);
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, -2, -1, &model), NRT_INVALID);
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, 0, 2, &model), NRT_INVALID);
  EXPECT_EQ(nrt_load_collectives(neff.bytes, neff.size, 0, -1, 3, 2, &model), NRT_INVALID);
  EXPECT_TRUE(model == NULL);
  EXPECT_EQ(bytes_used(0), 0);
  EXPECT_EQ(nrt_unload(NULL), NRT_INVALID);
  EXPECT_EQ(nrt_get_model_tensor_info(NULL, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_free_model_tensor_info(NULL), NRT_SUCCESS);
  free(neff.bytes);
}

static void check_wrong_lnc(const char *neff_path) {
  blob_t neff = read_file(neff_path);
  if (neff.bytes == NULL) return;
  nrt_model_t *model = NULL;
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, 0, -1, &model), NRT_INVALID);
  EXPECT_TRUE(model == NULL);
  free(neff.bytes);
}

/* Before nrt_init: NRT_UNINITIALIZED; after nrt_close: NRT_CLOSED, and close unloaded it all. */
static void check_lifecycle(const char *neff_path, bool before_init) {
  blob_t neff = read_file(neff_path);
  if (neff.bytes == NULL) return;
  int want = before_init ? NRT_UNINITIALIZED : NRT_CLOSED;
  nrt_model_t *model = NULL;
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, 0, -1, &model), want);
  EXPECT_EQ(nrt_load(neff.bytes, neff.size, -1, -1, &model), want);
  EXPECT_TRUE(model == NULL);
  EXPECT_EQ(nrt_free_model_tensor_info(NULL), NRT_SUCCESS);
  if (!before_init) {
    /* Init, load two models, close: later calls on them are NRT_CLOSED; re-init starts empty. */
    nrt_model_t *a = NULL, *b = NULL;
    EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
    EXPECT_EQ(nrt_load(neff.bytes, neff.size, 0, -1, &a), NRT_SUCCESS);
    EXPECT_EQ(nrt_load(neff.bytes, neff.size, 0, -1, &b), NRT_SUCCESS);
    nrt_close();
    EXPECT_EQ(nrt_unload(a), NRT_CLOSED);
    uint32_t n = 0;
    EXPECT_EQ(nrt_get_model_vnc_count(b, &n), NRT_CLOSED);
    EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
    EXPECT_EQ(bytes_used(0), 0);
    EXPECT_EQ(nrt_unload(a), NRT_INVALID_HANDLE);
    nrt_close();
  }
  free(neff.bytes);
}

int main(int argc, char **argv) {
  const char *wrong_lnc = NULL;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "--wrong-lnc") == 0) {
    wrong_lnc = argv[2];
    first = 3;
  }
  if (argc - first < 2 || (argc - first) % 2 != 0) {
    fprintf(stderr, "usage: %s [--wrong-lnc NEFF] NEFF EXPECT [NEFF EXPECT]...\n", argv[0]);
    return 2;
  }
  check_lifecycle(argv[first], true);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  check_bad_inputs(argv[first]);
  if (wrong_lnc != NULL) check_wrong_lnc(wrong_lnc);
  for (int i = first; i + 1 < argc; i += 2) check_model(argv[i], argv[i + 1]);
  nrt_close();
  check_lifecycle(argv[first], false);
  C_CHECK_SUMMARY();
}
