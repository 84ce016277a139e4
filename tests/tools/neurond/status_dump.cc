// neurond_status: prints a daemon's Status RPC answer as one line of JSON (protobuf's JSON
// mapping, proto field names, zero values included; 64-bit integers are strings), for tests
// written in Python.
//
//   neurond_status ADDR
//
// It opens a session of its own (Hello, pid 4242, command "neurond_test"; no Attach), which the
// output lists too, and ends it with Goodbye. Exit status 1 with a message on stderr when a call
// fails, 2 for a bad command line.
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <string>

#include "tests/tools/neurond/test_client.h"

int main(int argc, char** argv) {
  namespace v1 = trnsim::neurond::v1;
  if (argc != 2) {
    std::fprintf(stderr, "usage: neurond_status ADDR\n");
    return 2;
  }
  trnsim::neurond::testing::RawClient client(argv[1]);
  v1::HelloResponse hello;
  grpc::Status rpc = client.Hello("", &hello);
  if (!rpc.ok() || hello.status().code() != 0) {
    std::fprintf(stderr, "neurond_status: Hello to %s failed: %s%s\n", argv[1],
                 rpc.error_message().c_str(), hello.status().message().c_str());
    return 1;
  }
  v1::StatusResponse status;
  rpc = client.stub().Status(client.Context().get(), v1::StatusRequest(), &status);
  v1::GoodbyeResponse bye;
  (void)client.stub().Goodbye(client.Context().get(), v1::GoodbyeRequest(), &bye);
  if (!rpc.ok() || status.status().code() != 0) {
    std::fprintf(stderr, "neurond_status: Status failed: %s%s\n", rpc.error_message().c_str(),
                 status.status().message().c_str());
    return 1;
  }
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(status, &json, options).ok()) {
    std::fprintf(stderr, "neurond_status: cannot print the answer as JSON\n");
    return 1;
  }
  std::printf("%s\n", json.c_str());
  return 0;
}
