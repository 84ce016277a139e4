/*
 * cc_rank: one rank of a collective job, as torchrun starts them, for collectives_test.py.
 *
 *   cc_rank MODEL.neff run [EXECUTIONS]   rank RANK of WORLD_SIZE (torchrun's variables) on
 *                                         logical core 0 of the process (NEURON_RT_VISIBLE_CORES
 *                                         picks which); EXECUTIONS defaults to 2
 *   cc_rank MODEL.neff hang               load, print "loaded", then "executing" right before its
 *                                         one execution (the test kills the process while it
 *                                         waits for the others)
 *   cc_rank MODEL.neff threads N          N ranks in this one process, one thread per logical
 *                                         core 0..N-1 (ranks = cores), each running `run` once
 *   cc_rank MODEL.neff gather [EXECUTIONS] as `run` for an all-gather NEFF (allgather_fp32_w*:
 *                                         `out` is WORLD_SIZE blocks the size of `in`; block r
 *                                         must be rank r's input, bit for bit)
 *
 * MODEL is an all-reduce NEFF (allreduce_fp32*: one fp32 input, one fp32 output, the sum over
 * the world). Rank r's input in execution e is element i = (r + 1) * (e + 1) * (i % 251 + 1),
 * so the exact sum is W (W + 1) / 2 * (e + 1) * (i % 251 + 1) — exact in fp32 for W <= 64 —
 * and every output element is compared with it bit for bit. After the executions a rank runs
 * nrt_barrier and an nrt_all_gather of its rank number and checks the gathered ranks.
 *
 * Prints "rank R: ok (E executions, N elements, barrier, all_gather)" and exits 0; on a failing
 * call prints "rank R: CALL: STATUS_NAME" and exits 1 (the runtime's log line with the reason
 * goes to stderr); wrong data: "rank R: element I is X, expected Y", exit 1. Bad usage: 2.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

struct job {
  const void *neff;
  size_t neff_size;
  int vnc;
  uint32_t rank;
  uint32_t world;
  int executions;
  int hang;
  int gather; /* the model all-gathers instead of all-reducing */
  int status; /* 0 ok, 1 failure */
  pthread_barrier_t *loaded; /* threads mode: every rank loaded before any executes */
};

static int fail(const struct job *j, const char *what, NRT_STATUS s) {
  printf("rank %u: %s: %s\n", j->rank, what, nrt_get_status_as_str(s));
  fflush(stdout);
  return 1;
}

/* The output elements a rank checks: the input's for an all-reduce, WORLD blocks of it for an
 * all-gather. */
static size_t checked_total(const struct job *j, size_t n) { return j->gather ? n * j->world : n; }

static int run_rank(struct job *j) {
  nrt_model_t *model = NULL;
  NRT_STATUS s = nrt_load_collectives(j->neff, j->neff_size, j->vnc, -1, j->rank, j->world,
                                      &model);
  if (s != NRT_SUCCESS) return fail(j, "nrt_load_collectives", s);
  nrt_tensor_info_array_t *info = NULL;
  if ((s = nrt_get_model_tensor_info(model, &info)) != NRT_SUCCESS) {
    return fail(j, "nrt_get_model_tensor_info", s);
  }
  if (info->tensor_count != 2) {
    printf("rank %u: the model has %zu tensors, expected one input and one output\n", j->rank,
           info->tensor_count);
    return 1;
  }
  nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
  nrt_tensor_t *in = NULL, *out = NULL;
  size_t bytes = 0, out_bytes = 0;
  for (size_t t = 0; t < 2; ++t) {
    if (info->tensor_array[t].usage == NRT_TENSOR_USAGE_INPUT) {
      bytes = info->tensor_array[t].size;
    } else {
      out_bytes = info->tensor_array[t].size;
    }
  }
  if (out_bytes != (j->gather ? bytes * j->world : bytes)) {
    printf("rank %u: the output is %zu bytes for an input of %zu\n", j->rank, out_bytes, bytes);
    return 1;
  }
  if ((s = nrt_allocate_tensor_set(&inputs)) != NRT_SUCCESS ||
      (s = nrt_allocate_tensor_set(&outputs)) != NRT_SUCCESS) {
    return fail(j, "nrt_allocate_tensor_set", s);
  }
  for (size_t t = 0; t < 2; ++t) {
    const nrt_tensor_info_t *ti = &info->tensor_array[t];
    int input = ti->usage == NRT_TENSOR_USAGE_INPUT;
    nrt_tensor_t **slot = input ? &in : &out;
    if ((s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, j->vnc, ti->size, ti->name, slot)) !=
        NRT_SUCCESS) {
      return fail(j, "nrt_tensor_allocate", s);
    }
    if ((s = nrt_add_tensor_to_tensor_set(input ? inputs : outputs, ti->name, *slot)) !=
        NRT_SUCCESS) {
      return fail(j, "nrt_add_tensor_to_tensor_set", s);
    }
  }
  size_t n = bytes / sizeof(float);
  float *host = malloc(out_bytes > 0 ? out_bytes : 1);
  if (host == NULL) return 1;
  if (j->hang) {
    printf("rank %u: loaded\n", j->rank);
    fflush(stdout);
  }
  /* In one process a rank waiting in a collective holds the runtime shared, so loads (which
   * restructure it) wait for it: load every rank before any executes (docs/collectives.md). */
  if (j->loaded != NULL) pthread_barrier_wait(j->loaded);
  for (int e = 0; e < j->executions; ++e) {
    for (size_t i = 0; i < n; ++i) host[i] = (float)((j->rank + 1) * (e + 1) * (i % 251 + 1));
    if ((s = nrt_tensor_write(in, host, 0, bytes)) != NRT_SUCCESS) {
      return fail(j, "nrt_tensor_write", s);
    }
    if (j->hang) {
      printf("rank %u: executing\n", j->rank);
      fflush(stdout);
    }
    if ((s = nrt_execute(model, inputs, outputs)) != NRT_SUCCESS) return fail(j, "nrt_execute", s);
    memset(host, 0, out_bytes);
    if ((s = nrt_tensor_read(out, host, 0, out_bytes)) != NRT_SUCCESS) {
      return fail(j, "nrt_tensor_read", s);
    }
    const double ranks_sum = (double)j->world * (j->world + 1) / 2;
    const size_t checked = out_bytes / sizeof(float);
    for (size_t i = 0; i < checked; ++i) {
      /* all-gather: element i is element i % n of rank i / n's input */
      float want = j->gather ? (float)((i / n + 1) * (e + 1) * (i % n % 251 + 1))
                             : (float)(ranks_sum * (e + 1) * (i % 251 + 1));
      if (memcmp(&host[i], &want, sizeof want) != 0) {
        printf("rank %u: execution %d: element %zu is %.9g, expected %.9g\n", j->rank, e, i,
               host[i], want);
        return 1;
      }
    }
  }
  if ((s = nrt_barrier(j->vnc, j->rank, j->world)) != NRT_SUCCESS) {
    return fail(j, "nrt_barrier", s);
  }
  uint32_t *gathered = calloc(j->world, sizeof(uint32_t));
  if (gathered == NULL) return 1;
  if ((s = nrt_all_gather(j->vnc, j->rank, j->world, sizeof(uint32_t), &j->rank, gathered)) !=
      NRT_SUCCESS) {
    return fail(j, "nrt_all_gather", s);
  }
  for (uint32_t r = 0; r < j->world; ++r) {
    if (gathered[r] != r) {
      printf("rank %u: all_gather slot %u holds %u\n", j->rank, r, gathered[r]);
      return 1;
    }
  }
  printf("rank %u: ok (%d executions, %zu elements, barrier, all_gather)\n", j->rank, j->executions,
         checked_total(j, n));
  fflush(stdout);
  free(gathered);
  free(host);
  nrt_destroy_tensor_set(&inputs);
  nrt_destroy_tensor_set(&outputs);
  nrt_tensor_free(&in);
  nrt_tensor_free(&out);
  nrt_free_model_tensor_info(info);
  nrt_unload(model);
  return 0;
}

static void *thread_main(void *arg) {
  struct job *j = arg;
  j->status = run_rank(j);
  return NULL;
}

static long env_number(const char *name) {
  const char *v = getenv(name);
  return v == NULL ? -1 : atol(v);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cc_rank MODEL.neff run [EXECUTIONS] | hang | threads N\n");
    return 2;
  }
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
    fprintf(stderr, "cc_rank: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);

  NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (s != NRT_SUCCESS) {
    printf("rank ?: nrt_init: %s\n", nrt_get_status_as_str(s));
    return 1;
  }
  int status = 0;
  if (strcmp(argv[2], "threads") == 0) {
    int count = argc > 3 ? atoi(argv[3]) : 0;
    if (count < 1 || count > 128) {
      fprintf(stderr, "cc_rank: threads needs a count in 1..128\n");
      return 2;
    }
    struct job *jobs = calloc((size_t)count, sizeof(struct job));
    pthread_t *threads = calloc((size_t)count, sizeof(pthread_t));
    pthread_barrier_t loaded;
    pthread_barrier_init(&loaded, NULL, (unsigned)count);
    for (int t = 0; t < count; ++t) {
      jobs[t] =
          (struct job){neff, (size_t)size, t, (uint32_t)t, (uint32_t)count, 1, 0, 0, 0, &loaded};
      pthread_create(&threads[t], NULL, thread_main, &jobs[t]);
    }
    for (int t = 0; t < count; ++t) {
      pthread_join(threads[t], NULL);
      status |= jobs[t].status;
    }
    pthread_barrier_destroy(&loaded);
    free(jobs);
    free(threads);
  } else {
    long rank = env_number("RANK"), world = env_number("WORLD_SIZE");
    if (rank < 0 || world < 1) {
      fprintf(stderr, "cc_rank: RANK and WORLD_SIZE must be set (torchrun-style)\n");
      return 2;
    }
    struct job j = {neff, (size_t)size, 0, (uint32_t)rank, (uint32_t)world, 2, 0, 0, 0, NULL};
    if (strcmp(argv[2], "hang") == 0) {
      j.hang = 1;
      j.executions = 1;
    } else if (strcmp(argv[2], "run") == 0 || strcmp(argv[2], "gather") == 0) {
      j.gather = strcmp(argv[2], "gather") == 0;
      if (argc > 3) j.executions = atoi(argv[3]);
    } else {
      fprintf(stderr, "cc_rank: unknown mode '%s'\n", argv[2]);
      return 2;
    }
    status = run_rank(&j);
  }
  nrt_close();
  free(neff);
  return status;
}
