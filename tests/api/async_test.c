/*
 * The explicit async API (<nrt/nrt_async.h>, NRT_3.0.0) from plain C11, against the installed
 * tree, with the vector_add_fp32 sample (argument: its .neff; trn2.3xlarge at LNC=1):
 *  - a pipeline per (core, round): two input writes on the two tensor-op queues, an execution
 *    on the compute queue, a read on a tensor-op queue, each step scheduled when the previous
 *    ones have completed, all pipelines of two cores interleaved. Every sequence id (queue bits,
 *    numbers rising by one per queue), every status, every eventfd signal and every output
 *    (out = a + b exactly) is checked;
 *  - back-pressure: writes scheduled on one queue until NRT_QUEUE_FULL, then drained;
 *  - argument errors, a failed request that leaves its queue usable, nrt_close completing
 *    what is queued.
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_async.h>

#include "c_check.h"
#include "c_async_wait.h"
#include "c_files.h"

#define ELEMENTS (512 * 1024) /* vector_add_fp32: a, b, out are fp32 [512, 1024] */
#define BYTES (ELEMENTS * 4)
#define CORES 2
#define ROUNDS 3
#define PIPELINES (CORES * ROUNDS)
#define NOT_WRITTEN ((NRT_STATUS)-12345)

/* The queue id a sequence id must carry (docs/async.md). */
static uint64_t queue_bits(int lnc, nrta_xu_t xu, int queue) {
  return ((uint64_t)lnc << 8) | ((uint64_t)xu << 4) | (uint64_t)queue;
}

/* Requests issued so far per (core, xu, queue): the expected next number is this + 1. */
static uint64_t issued[CORES][NRTA_XU_TYPE_NUM][3];

static void expect_seq(nrta_seq_t seq, int lnc, nrta_xu_t xu, int queue) {
  EXPECT_EQ(NRTA_SEQ_GET_XU_ID(seq), queue_bits(lnc, xu, queue));
  EXPECT_EQ(NRTA_SEQ_GET_SEQ_NUM(seq), ++issued[lnc][xu][queue]);
}

/* One (core, round) pipeline. */
typedef struct {
  int core, round, step; /* step: 0 writes, 1 execute, 2 read, 3 done */
  nrt_tensor_t *a, *b, *out;
  nrt_tensor_set_t *inputs, *outputs;
  float *host_a, *host_b, *host_out;
  NRT_STATUS ret[4]; /* write a, write b, execute, read */
  nrta_seq_t seq[4];
  int fd; /* signalled by each of the pipeline's requests */
  int awaited; /* signals the current step still waits for */
} pipeline_t;

static void schedule_step(pipeline_t *p, nrt_model_t *model) {
  int c = p->core;
  if (p->step == 0) {
    int qa = p->round % 2, qb = 1 - qa; /* both tensor-op queues, alternating */
    EXPECT_EQ(nrta_tensor_write(p->a, p->host_a, 0, BYTES, c, qa, &p->ret[0], &p->seq[0]),
              NRT_SUCCESS);
    expect_seq(p->seq[0], c, NRTA_XU_TENSOR_OP, qa);
    EXPECT_EQ(nrta_tensor_write(p->b, p->host_b, 0, BYTES, c, qb, &p->ret[1], &p->seq[1]),
              NRT_SUCCESS);
    expect_seq(p->seq[1], c, NRTA_XU_TENSOR_OP, qb);
    EXPECT_EQ(nrta_event_register_seq_id_completion(p->seq[0], p->fd), NRT_SUCCESS);
    EXPECT_EQ(nrta_event_register_seq_id_completion(p->seq[1], p->fd), NRT_SUCCESS);
    p->awaited = 2;
  } else if (p->step == 1) {
    EXPECT_EQ(nrta_execute_schedule(model, p->inputs, p->outputs, 0, &p->ret[2], &p->seq[2]),
              NRT_SUCCESS);
    expect_seq(p->seq[2], c, NRTA_XU_COMPUTE, 0);
    EXPECT_EQ(nrta_event_register_seq_id_completion(p->seq[2], p->fd), NRT_SUCCESS);
    p->awaited = 1;
  } else if (p->step == 2) {
    int q = (p->round + 1) % 2;
    EXPECT_EQ(nrta_tensor_read(p->host_out, p->out, 0, BYTES, c, q, &p->ret[3], &p->seq[3]),
              NRT_SUCCESS);
    expect_seq(p->seq[3], c, NRTA_XU_TENSOR_OP, q);
    EXPECT_EQ(nrta_event_register_seq_id_completion(p->seq[3], p->fd), NRT_SUCCESS);
    p->awaited = 1;
  }
}

static void check_pipelines(nrt_model_t *models[CORES]) {
  pipeline_t pipes[PIPELINES];
  memset(pipes, 0, sizeof(pipes));
  int compute_fd[CORES];
  for (int c = 0; c < CORES; ++c) {
    compute_fd[c] = eventfd(0, EFD_CLOEXEC);
    EXPECT_EQ(nrta_event_register_xu_completion(c, NRTA_XU_COMPUTE, 0, compute_fd[c]),
              NRT_SUCCESS);
  }
  for (int i = 0; i < PIPELINES; ++i) {
    pipeline_t *p = &pipes[i];
    p->core = i % CORES;
    p->round = i / CORES;
    EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, p->core, BYTES, "a", &p->a),
              NRT_SUCCESS);
    EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, p->core, BYTES, "b", &p->b),
              NRT_SUCCESS);
    EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, p->core, BYTES, "out", &p->out),
              NRT_SUCCESS);
    EXPECT_EQ(nrt_allocate_tensor_set(&p->inputs), NRT_SUCCESS);
    EXPECT_EQ(nrt_allocate_tensor_set(&p->outputs), NRT_SUCCESS);
    EXPECT_EQ(nrt_add_tensor_to_tensor_set(p->inputs, "a", p->a), NRT_SUCCESS);
    EXPECT_EQ(nrt_add_tensor_to_tensor_set(p->inputs, "b", p->b), NRT_SUCCESS);
    EXPECT_EQ(nrt_add_tensor_to_tensor_set(p->outputs, "out", p->out), NRT_SUCCESS);
    p->host_a = malloc(BYTES);
    p->host_b = malloc(BYTES);
    p->host_out = malloc(BYTES);
    for (int e = 0; e < ELEMENTS; ++e) {
      p->host_a[e] = (float)(e % 1000) * 0.5f + (float)i;
      p->host_b[e] = (float)(e % 77) * -0.25f + (float)(3 * i);
    }
    for (int r = 0; r < 4; ++r) p->ret[r] = NOT_WRITTEN;
    p->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    schedule_step(p, models[p->core]);
  }
  /* Advance every pipeline as its requests complete, in whatever order they do. */
  int done = 0, rounds_without_progress = 0;
  while (done < PIPELINES && rounds_without_progress < 10000) {
    int progressed = 0;
    for (int i = 0; i < PIPELINES; ++i) {
      pipeline_t *p = &pipes[i];
      if (p->step == 3) continue;
      uint64_t value = 0;
      if (read(p->fd, &value, sizeof(value)) != (ssize_t)sizeof(value)) continue;
      p->awaited -= (int)value;
      if (p->awaited > 0) continue;
      EXPECT_EQ(p->awaited, 0);
      /* The step's requests are complete and their statuses written. */
      int first = p->step == 0 ? 0 : p->step + 1, last = p->step == 0 ? 1 : p->step + 1;
      for (int r = first; r <= last; ++r) {
        bool completed = false;
        EXPECT_EQ(nrta_is_completed(p->seq[r], &completed), NRT_SUCCESS);
        EXPECT_TRUE(completed);
        EXPECT_EQ(p->ret[r], NRT_SUCCESS);
      }
      ++p->step;
      progressed = 1;
      if (p->step == 3) {
        ++done;
      } else {
        schedule_step(p, models[p->core]);
      }
    }
    if (progressed) {
      rounds_without_progress = 0;
    } else {
      ++rounds_without_progress;
      usleep(1000);
    }
  }
  EXPECT_EQ(done, PIPELINES);
  for (int i = 0; i < PIPELINES; ++i) {
    pipeline_t *p = &pipes[i];
    int wrong = 0;
    for (int e = 0; e < ELEMENTS; ++e) wrong += p->host_out[e] != p->host_a[e] + p->host_b[e];
    EXPECT_EQ(wrong, 0);
  }
  /* Each core's compute queue ran ROUNDS executions, each signalling its eventfd. */
  for (int c = 0; c < CORES; ++c) {
    uint64_t signals = 0;
    while (signals < ROUNDS) {
      uint64_t value = wait_event(compute_fd[c]);
      if (value == 0) break;
      signals += value;
    }
    EXPECT_EQ(signals, ROUNDS);
    nrta_seq_t last = 0;
    EXPECT_EQ(nrta_get_sequence((uint32_t)c, NRTA_XU_COMPUTE, 0, &last), NRT_SUCCESS);
    EXPECT_EQ(last, (queue_bits(c, NRTA_XU_COMPUTE, 0) << 48) | ROUNDS);
    for (int q = 0; q < 2; ++q) {
      EXPECT_EQ(nrta_get_sequence((uint32_t)c, NRTA_XU_TENSOR_OP, q, &last), NRT_SUCCESS);
      EXPECT_EQ(NRTA_SEQ_GET_SEQ_NUM(last), issued[c][NRTA_XU_TENSOR_OP][q]);
    }
    EXPECT_EQ(nrta_event_register_xu_completion(c, NRTA_XU_COMPUTE, 0, -1), NRT_SUCCESS);
    close(compute_fd[c]);
  }
  for (int i = 0; i < PIPELINES; ++i) {
    pipeline_t *p = &pipes[i];
    close(p->fd);
    nrt_destroy_tensor_set(&p->inputs);
    nrt_destroy_tensor_set(&p->outputs);
    nrt_tensor_free(&p->a);
    nrt_tensor_free(&p->b);
    nrt_tensor_free(&p->out);
    free(p->host_a);
    free(p->host_b);
    free(p->host_out);
  }
}

/* Writes on one queue until it is full, then waits for all of them. */
static void check_back_pressure(void) {
  const uint64_t big = 32u << 20;
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, big, "big", &t), NRT_SUCCESS);
  char *host = calloc(1, big);
  enum { MAX = 4096 };
  static NRT_STATUS rets[MAX];
  nrta_seq_t seq = 0, last_issued = 0;
  int accepted = 0, refused = 0;
  while (accepted < MAX) {
    rets[accepted] = NOT_WRITTEN;
    NRT_STATUS s = nrta_tensor_write(t, host, 0, big, 0, 1, &rets[accepted], &seq);
    if (s == NRT_QUEUE_FULL) {
      refused = 1;
      EXPECT_EQ(rets[accepted], NOT_WRITTEN); /* a refused request writes nothing */
      break;
    }
    EXPECT_EQ(s, NRT_SUCCESS);
    last_issued = seq;
    ++accepted;
  }
  EXPECT_TRUE(refused);
  nrta_seq_t completed = 0;
  EXPECT_EQ(nrta_get_sequence(0, NRTA_XU_TENSOR_OP, 1, &completed), NRT_SUCCESS);
  uint64_t pending = NRTA_SEQ_GET_SEQ_NUM(last_issued) - NRTA_SEQ_GET_SEQ_NUM(completed);
  EXPECT_TRUE(pending >= 1 && pending <= 64);
  printf("back-pressure: NRT_QUEUE_FULL after %d writes, %llu pending\n", accepted,
         (unsigned long long)pending);
  /* Drain through the queue's eventfd until the last write has completed. */
  int fd = eventfd(0, EFD_CLOEXEC);
  EXPECT_EQ(nrta_event_register_seq_id_completion(last_issued, fd), NRT_SUCCESS);
  EXPECT_EQ(wait_event(fd), 1);
  bool is_done = false;
  EXPECT_EQ(nrta_is_completed(last_issued, &is_done), NRT_SUCCESS);
  EXPECT_TRUE(is_done);
  int ok = 0;
  for (int i = 0; i < accepted; ++i) ok += rets[i] == NRT_SUCCESS;
  EXPECT_EQ(ok, accepted);
  NRT_STATUS again = NOT_WRITTEN;
  EXPECT_EQ(nrta_tensor_write(t, host, 0, 64, 0, 1, &again, &seq), NRT_SUCCESS);
  EXPECT_EQ(nrta_event_register_seq_id_completion(seq, fd), NRT_SUCCESS);
  EXPECT_EQ(wait_event(fd), 1);
  EXPECT_EQ(again, NRT_SUCCESS);
  EXPECT_EQ(nrta_event_register_seq_id_completion(seq, -1), NRT_SUCCESS);
  close(fd);
  nrt_tensor_free(&t);
  free(host);
}

static void check_errors(nrt_model_t *model) {
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 256, "t", &t), NRT_SUCCESS);
  char buf[512] = {0};
  NRT_STATUS ret = NOT_WRITTEN;
  nrta_seq_t seq = 0;
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, 0, 2, &ret, &seq), NRT_INVALID); /* queue 2 */
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, 8, 0, &ret, &seq), NRT_INVALID); /* core 8 */
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, -1, 0, &ret, &seq), NRT_INVALID);
  EXPECT_EQ(nrta_tensor_write(t, buf, 1, 256, 0, 0, &ret, &seq), NRT_INVALID); /* range */
  EXPECT_EQ(nrta_tensor_read(buf, t, 0, 512, 0, 0, &ret, &seq), NRT_INVALID);
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, 0, 0, NULL, &seq), NRT_INVALID);
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, 0, 0, &ret, NULL), NRT_INVALID);
  EXPECT_EQ(ret, NOT_WRITTEN);
  nrt_tensor_set_t *empty = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&empty), NRT_SUCCESS);
  EXPECT_EQ(nrta_execute_schedule(model, empty, empty, 1, &ret, &seq), NRT_INVALID); /* queue */
  EXPECT_EQ(nrta_execute_schedule((nrt_model_t *)buf, empty, empty, 0, &ret, &seq),
            NRT_INVALID_HANDLE);
  bool completed = true;
  EXPECT_EQ(nrta_is_completed((queue_bits(0, NRTA_XU_COMPUTE, 0) << 48) | 1000, &completed),
            NRT_INVALID);
  EXPECT_EQ(nrta_get_sequence(0, (nrta_xu_t)3, 0, &seq), NRT_INVALID);
  EXPECT_EQ(nrta_get_sequence(0, NRTA_XU_COLLECTIVES, 3, &seq), NRT_INVALID);
  EXPECT_EQ(nrta_event_register_seq_id_completion(1, -2), NRT_INVALID);
  EXPECT_EQ(nrta_event_register_xu_completion(0, NRTA_XU_COMPUTE, 0, 1 << 20), NRT_INVALID);

  /* An execution whose sets lack the model's tensors fails when it runs: *ret says so and
   * the compute queue stays usable (not a hardware fault). */
  int fd = eventfd(0, EFD_CLOEXEC);
  EXPECT_EQ(nrta_execute_schedule(model, empty, empty, 0, &ret, &seq), NRT_SUCCESS);
  EXPECT_EQ(nrta_event_register_seq_id_completion(seq, fd), NRT_SUCCESS);
  EXPECT_EQ(wait_event(fd), 1);
  EXPECT_EQ(ret, NRT_INVALID);
  ret = NOT_WRITTEN;
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, 0, 0, &ret, &seq), NRT_SUCCESS);
  nrt_destroy_tensor_set(&empty);
  close(fd);

  /* nrt_close completes what is queued; afterwards the API reports the closed runtime. */
  nrt_close();
  EXPECT_EQ(ret, NRT_SUCCESS);
  EXPECT_EQ(nrta_is_completed(seq, &completed), NRT_CLOSED);
  EXPECT_EQ(nrta_tensor_write(t, buf, 0, 256, 0, 0, &ret, &seq), NRT_CLOSED);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    printf("usage: %s vector_add_fp32.neff\n", argv[0]);
    return 2;
  }
  bool completed = false;
  EXPECT_EQ(nrta_is_completed(1, &completed), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  size_t size = 0;
  void *neff = read_file(argv[1], &size);
  EXPECT_TRUE(neff != NULL);
  if (neff == NULL) C_CHECK_SUMMARY();
  nrt_model_t *models[CORES] = {NULL};
  for (int c = 0; c < CORES; ++c) {
    EXPECT_EQ(nrt_load(neff, size, c, 1, &models[c]), NRT_SUCCESS);
    if (models[c] == NULL) C_CHECK_SUMMARY();
  }
  check_pipelines(models);
  check_back_pressure();
  check_errors(models[0]); /* closes the runtime */
  free(neff);
  C_CHECK_SUMMARY();
}
