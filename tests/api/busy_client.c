/*
 * busy_client: a client that keeps its NeuronCore busy, for remote_kill_test.py.
 *
 *   busy_client MODEL.neff [COUNT]
 *
 * nrt_init, nrt_load the model, allocate one device tensor per input and output (inputs stay
 * zero: only the time matters), print "loaded" (flushed), then run nrt_execute COUNT times, or
 * forever without COUNT, printing "executing N" (flushed) right before the N-th call (from 0),
 * and end with nrt_unload and nrt_close. Exit status 0 once COUNT
 * executions succeeded, 1 (with a message) when any call fails, 2 for a bad command line.
 */
#include <stdio.h>
#include <stdlib.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

static int fail(const char *what, NRT_STATUS s) {
  fprintf(stderr, "busy_client: %s: %s\n", what, nrt_get_status_as_str(s));
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: busy_client MODEL.neff [COUNT]\n");
    return 2;
  }
  long count = argc == 3 ? atol(argv[2]) : -1;
  FILE *f = fopen(argv[1], "rb");
  if (f == NULL) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *neff = malloc(size > 0 ? (size_t)size : 1);
  if (neff == NULL || fread(neff, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "busy_client: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);

  NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (s != NRT_SUCCESS) return fail("nrt_init", s);
  nrt_model_t *model = NULL;
  if ((s = nrt_load(neff, (size_t)size, -1, -1, &model)) != NRT_SUCCESS) return fail("nrt_load", s);
  nrt_tensor_info_array_t *info = NULL;
  nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
  if ((s = nrt_get_model_tensor_info(model, &info)) != NRT_SUCCESS ||
      (s = nrt_allocate_tensor_set(&inputs)) != NRT_SUCCESS ||
      (s = nrt_allocate_tensor_set(&outputs)) != NRT_SUCCESS) {
    return fail("tensor info or sets", s);
  }
  for (size_t i = 0; i < info->tensor_count; ++i) {
    const nrt_tensor_info_t *t = &info->tensor_array[i];
    nrt_tensor_t *tensor = NULL;
    s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t->size, t->name, &tensor);
    if (s != NRT_SUCCESS) return fail("nrt_tensor_allocate", s);
    s = nrt_add_tensor_to_tensor_set(t->usage == NRT_TENSOR_USAGE_INPUT ? inputs : outputs,
                                     t->name, tensor);
    if (s != NRT_SUCCESS) return fail("nrt_add_tensor_to_tensor_set", s);
  }
  printf("loaded\n");
  fflush(stdout);
  for (long i = 0; count < 0 || i < count; ++i) {
    printf("executing %ld\n", i);
    fflush(stdout);
    if ((s = nrt_execute(model, inputs, outputs)) != NRT_SUCCESS) return fail("nrt_execute", s);
  }
  nrt_unload(model);
  nrt_close();
  return 0;
}
