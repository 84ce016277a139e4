/*
 * first_app: the "first application" of AWS's runtime guide, unchanged in spirit — it knows
 * nothing of trnsim and includes only AWS's public headers, so the same source builds against
 * /opt/aws/neuron on a real trn2 instance.
 *
 *   first_app MODEL.neff [MODEL.neff ...]
 *
 * For each model: nrt_load it, ask nrt_get_model_tensor_info for its inputs and outputs,
 * allocate one device tensor per entry, fill each input from <MODEL>.inputs/<name>.bin, run
 * nrt_execute, read each output and compare it with <MODEL>.expected/<name>.bin element by
 * element within the tolerance in <MODEL>.expected/tolerance.txt ("rtol atol":
 * |got - want| <= atol + rtol * |want|), print PASS or FAIL per output (with the worst element),
 * then nrt_unload. <MODEL> is the NEFF path without ".neff". Exit status 0 when every output of
 * every model passes, 1 otherwise.
 *
 * Outputs may be float32 or bfloat16; other dtypes are compared byte for byte.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#define MAX_TENSORS 64

/* Reads a whole file into a new buffer; NULL (with a message) on error. */
static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  void *data = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc(n > 0 ? (size_t)n : 1);
    if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  if (data == NULL) fprintf(stderr, "cannot read %s\n", path);
  *size = (size_t)(n > 0 ? n : 0);
  return data;
}

static double element(const unsigned char *bytes, size_t i, nrt_dtype_t dtype) {
  uint32_t bits;
  float value;
  if (dtype == NRT_DTYPE_FLOAT32) {
    memcpy(&bits, bytes + 4 * i, 4);
  } else { /* bfloat16: the high half of a float32 */
    bits = (uint32_t)bytes[2 * i] << 16 | (uint32_t)bytes[2 * i + 1] << 24;
  }
  memcpy(&value, &bits, 4);
  return value;
}

/* Compares one output; prints PASS/FAIL and returns 1 when it passes. */
static int compare(const char *name, nrt_dtype_t dtype, const unsigned char *got,
                   const unsigned char *want, size_t size, double rtol, double atol) {
  if (dtype != NRT_DTYPE_FLOAT32 && dtype != NRT_DTYPE_BFLOAT16) {
    int same = memcmp(got, want, size) == 0;
    printf("  %-8s %s (bytewise, %zu bytes)\n", name, same ? "PASS" : "FAIL", size);
    return same;
  }
  size_t count = size / (dtype == NRT_DTYPE_FLOAT32 ? 4 : 2), bad = 0, worst = 0;
  double worst_excess = -INFINITY, max_err = 0.0;
  for (size_t i = 0; i < count; ++i) {
    double g = element(got, i, dtype), w = element(want, i, dtype);
    double err = fabs(g - w);
    if (isnan(g) || isnan(w)) err = (isnan(g) && isnan(w)) ? 0.0 : INFINITY;
    double excess = err - (atol + rtol * fabs(w));
    if (err > max_err) max_err = err;
    if (!(excess <= 0.0)) ++bad;
    if (excess > worst_excess || i == 0) {
      worst_excess = excess;
      worst = i;
    }
  }
  printf("  %-8s %s  %zu elements, %zu outside rtol %g atol %g, max |error| %.3g; worst element "
         "%zu: got %.6g want %.6g\n",
         name, bad == 0 ? "PASS" : "FAIL", count, bad, rtol, atol, max_err, worst,
         element(got, worst, dtype), element(want, worst, dtype));
  return bad == 0;
}

/* Runs one model end to end; returns 1 when every output matches. */
static int run_model(const char *neff_path) {
  char base[4096], path[4400];
  size_t len = strlen(neff_path);
  if (len < 5 || len >= sizeof(base) || strcmp(neff_path + len - 5, ".neff") != 0) {
    fprintf(stderr, "%s: expected a path ending in .neff\n", neff_path);
    return 0;
  }
  memcpy(base, neff_path, len - 5);
  base[len - 5] = '\0';

  double rtol = 0.0, atol = 0.0;
  snprintf(path, sizeof(path), "%s.expected/tolerance.txt", base);
  FILE *tf = fopen(path, "r");
  int have_tol = tf != NULL && fscanf(tf, "%lf %lf", &rtol, &atol) == 2;
  if (tf != NULL) fclose(tf);
  if (!have_tol) {
    fprintf(stderr, "cannot read the tolerance from %s\n", path);
    return 0;
  }

  size_t neff_size = 0;
  void *neff = read_file(neff_path, &neff_size);
  if (neff == NULL) return 0;
  nrt_model_t *model = NULL;
  NRT_STATUS s = nrt_load(neff, neff_size, -1, -1, &model);
  free(neff);
  if (s != NRT_SUCCESS) {
    fprintf(stderr, "nrt_load(%s) failed: %s\n", neff_path, nrt_get_status_as_str(s));
    return 0;
  }
  printf("%s\n", neff_path);

  int ok = 1;
  nrt_tensor_info_array_t *info = NULL;
  nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
  nrt_tensor_t *tensors[MAX_TENSORS] = {0};
  size_t count = 0;
  if (nrt_get_model_tensor_info(model, &info) != NRT_SUCCESS ||
      nrt_allocate_tensor_set(&inputs) != NRT_SUCCESS ||
      nrt_allocate_tensor_set(&outputs) != NRT_SUCCESS) {
    fprintf(stderr, "cannot query the model's tensors\n");
    ok = 0;
    goto done;
  }
  count = info->tensor_count < MAX_TENSORS ? info->tensor_count : MAX_TENSORS;

  /* One device tensor per input and output, inputs filled from their files. */
  for (size_t i = 0; i < count && ok; ++i) {
    const nrt_tensor_info_t *t = &info->tensor_array[i];
    int is_input = t->usage == NRT_TENSOR_USAGE_INPUT;
    s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t->size, t->name, &tensors[i]);
    if (s == NRT_SUCCESS) {
      s = nrt_add_tensor_to_tensor_set(is_input ? inputs : outputs, t->name, tensors[i]);
    }
    if (s != NRT_SUCCESS) {
      fprintf(stderr, "cannot allocate tensor %s: %s\n", t->name, nrt_get_status_as_str(s));
      ok = 0;
      break;
    }
    if (!is_input) continue;
    size_t size = 0;
    snprintf(path, sizeof(path), "%s.inputs/%s.bin", base, t->name);
    void *data = read_file(path, &size);
    if (data == NULL || size != t->size) {
      if (data != NULL) fprintf(stderr, "%s: %zu bytes, the model wants %zu\n", path, size, t->size);
      ok = 0;
    } else if ((s = nrt_tensor_write(tensors[i], data, 0, size)) != NRT_SUCCESS) {
      fprintf(stderr, "nrt_tensor_write(%s): %s\n", t->name, nrt_get_status_as_str(s));
      ok = 0;
    }
    free(data);
  }
  if (!ok) goto done;

  struct timespec t0, t1;
  timespec_get(&t0, TIME_UTC);
  s = nrt_execute(model, inputs, outputs);
  timespec_get(&t1, TIME_UTC);
  if (s != NRT_SUCCESS) {
    fprintf(stderr, "nrt_execute failed: %s\n", nrt_get_status_as_str(s));
    ok = 0;
    goto done;
  }
  printf("  nrt_execute: %.3f s on the host\n",
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);

  for (size_t i = 0; i < count; ++i) {
    const nrt_tensor_info_t *t = &info->tensor_array[i];
    if (t->usage != NRT_TENSOR_USAGE_OUTPUT) continue;
    size_t size = 0;
    snprintf(path, sizeof(path), "%s.expected/%s.bin", base, t->name);
    unsigned char *want = read_file(path, &size);
    unsigned char *got = malloc(t->size > 0 ? t->size : 1);
    if (want == NULL || got == NULL || size != t->size ||
        nrt_tensor_read(tensors[i], got, 0, t->size) != NRT_SUCCESS) {
      printf("  %-8s FAIL (cannot read the output or %s)\n", t->name, path);
      ok = 0;
    } else {
      ok &= compare(t->name, t->dtype, got, want, t->size, rtol, atol);
    }
    free(want);
    free(got);
  }

done:
  for (size_t i = 0; i < count; ++i) {
    if (tensors[i] != NULL) nrt_tensor_free(&tensors[i]);
  }
  if (inputs != NULL) nrt_destroy_tensor_set(&inputs);
  if (outputs != NULL) nrt_destroy_tensor_set(&outputs);
  if (info != NULL) nrt_free_model_tensor_info(info);
  nrt_unload(model);
  return ok;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep results in order with the runtime's log lines */
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.neff [MODEL.neff ...]\n", argv[0]);
    return 2;
  }
  NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (s != NRT_SUCCESS) {
    fprintf(stderr, "nrt_init failed: %s\n", nrt_get_status_as_str(s));
    return 1;
  }
  int passed = 0;
  for (int i = 1; i < argc; ++i) passed += run_model(argv[i]);
  nrt_close();
  printf("%d of %d models PASS\n", passed, argc - 1);
  return passed == argc - 1 ? 0 : 1;
}
