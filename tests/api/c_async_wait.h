/*
 * Waiting for an nrta_* request in the plain-C conformance tests: through an eventfd
 * registered with nrta_event_register_seq_id_completion, as a client would. Needs _GNU_SOURCE.
 */
#ifndef TRNSIM_TESTS_API_C_ASYNC_WAIT_H_
#define TRNSIM_TESTS_API_C_ASYNC_WAIT_H_

#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nrt/nrt_async.h>

/* Waits up to 10 s for eventfd `fd` and returns its counter (0: nothing signalled). */
static inline uint64_t wait_event(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  if (poll(&p, 1, 10000) != 1) return 0;
  uint64_t value = 0;
  if (read(fd, &value, sizeof(value)) != (ssize_t)sizeof(value)) return 0;
  return value;
}

/* 1 once request `seq` has completed (within 10 s), else 0. */
static inline int wait_for(nrta_seq_t seq) {
  int fd = eventfd(0, EFD_CLOEXEC);
  int ok = nrta_event_register_seq_id_completion(seq, fd) == NRT_SUCCESS && wait_event(fd) == 1;
  close(fd);
  return ok;
}

#endif /* TRNSIM_TESTS_API_C_ASYNC_WAIT_H_ */
