/*
 * A tiny libnrt client built the way another project builds against an installed trnsim
 * (find_package(trnsim), pkg-config libnrt, or -I/-L into an unpacked .deb), then run:
 *
 *   client EXPECTED_TOTAL_VNC EXPECTED_TRNSIM_VERSION
 *
 * It initialises the runtime, checks the logical-core counts against the instance the test
 * selected (TRNSIM_INSTANCE, NEURON_LOGICAL_NC_CONFIG), round-trips a pattern through a device
 * tensor, checks trnsim_get_version against the version the build was configured with, and
 * closes. Exit 0 and "client: ok" only when every check passed; otherwise one line per failure.
 */
#include <nrt/nrt.h>
#include <nrt/nrt_status.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trnsim/trnsim.h>

static int failures = 0;

static void Check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "client: FAIL %s\n", what);
    ++failures;
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: client EXPECTED_TOTAL_VNC EXPECTED_TRNSIM_VERSION\n");
    return 2;
  }
  const uint32_t expected_total = (uint32_t)strtoul(argv[1], NULL, 10);

  char version[32] = "", git_hash[64] = "";
  Check(trnsim_get_version(version, sizeof(version), git_hash, sizeof(git_hash)) == NRT_SUCCESS,
        "trnsim_get_version");
  Check(strcmp(version, argv[2]) == 0, "trnsim_get_version reports the configured version");

  NRT_STATUS status = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (status != NRT_SUCCESS) {
    fprintf(stderr, "client: FAIL nrt_init: %s\n", nrt_get_status_as_str(status));
    return 1;
  }
  uint32_t total = 0, visible = 0;
  Check(nrt_get_total_nc_count(&total) == NRT_SUCCESS, "nrt_get_total_nc_count");
  Check(total == expected_total, "the total logical core count is the instance's");
  Check(nrt_get_visible_vnc_count(&visible) == NRT_SUCCESS, "nrt_get_visible_vnc_count");
  Check(visible == expected_total, "every logical core is visible");

  enum { kBytes = 4096 };
  nrt_tensor_t *tensor = NULL;
  Check(
      nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes, "client", &tensor) == NRT_SUCCESS,
      "nrt_tensor_allocate");
  if (tensor != NULL) {
    unsigned char out[kBytes], in[kBytes];
    for (int i = 0; i < kBytes; ++i) out[i] = (unsigned char)(i * 29 + 3);
    memset(in, 0, sizeof(in));
    Check(nrt_tensor_write(tensor, out, 0, kBytes) == NRT_SUCCESS, "nrt_tensor_write");
    Check(nrt_tensor_read(tensor, in, 0, kBytes) == NRT_SUCCESS, "nrt_tensor_read");
    Check(memcmp(in, out, kBytes) == 0, "the tensor reads back what was written");
    nrt_tensor_free(&tensor);
    Check(tensor == NULL, "nrt_tensor_free clears the handle");
  }
  nrt_close();
  if (failures != 0) return 1;
  printf("client: ok (%u logical cores, trnsim %s)\n", total, version);
  return 0;
}
