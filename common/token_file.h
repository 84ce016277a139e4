// Token files: the shared secret a neurond asks its clients for, kept in a file. neurond reads
// its own with --token-file; clients read the same file through TRNSIM_TOKEN_FILE (the Debian
// package creates /etc/trnsim/neurond.token, root:neuron 0640, for both). One reader, so both
// sides agree on the format: the token is the file's first line without its trailing spaces,
// tabs and carriage return.
//
// Errors (NRT_INVALID, the message naming the path): the path is a directory ("it is a
// directory, not a file"), the file cannot be opened or read (the system's reason: "No such
// file or directory", "Permission denied" with a hint about the file's group), or its first
// line is empty.
//
// Thread safety: reentrant.
#pragma once

#include <string>

#include "common/status_or.h"

namespace trnsim {

StatusOr<std::string> ReadTokenFile(const std::string& path);

}  // namespace trnsim
