#pragma once

#include <cstddef>

namespace hetbench::kubesim::protobuf {

/// The serialized google.protobuf.FileDescriptorSet of schemas/*.proto (with their imports),
/// compiled by protoc at build time (CMakeLists.txt).
extern const unsigned char kSchemaDescriptors[];
extern const std::size_t kSchemaDescriptorsSize;

}  // namespace hetbench::kubesim::protobuf
