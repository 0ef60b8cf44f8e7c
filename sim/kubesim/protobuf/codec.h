#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "hetbench/common/status.h"

namespace hetbench::kubesim::protobuf {

/// Kubernetes' protobuf media type, and the Content-Type of its watch streams.
inline constexpr std::string_view kMediaType = "application/vnd.kubernetes.protobuf";
inline constexpr std::string_view kWatchMediaType =
    "application/vnd.kubernetes.protobuf;stream=watch";

/// Whether kubesim has the protobuf schema of a kind ("v1", "Pod"): the built-in kinds it serves,
/// their lists and meta/v1 Status, DeleteOptions and WatchEvent; never a custom resource.
bool hasSchema(std::string_view apiVersion, std::string_view kind);

/// An object (its JSON, with apiVersion and kind) as the API server writes it in protobuf: the
/// magic "k8s\0", then a runtime.Unknown whose raw bytes are the object's message. Invalid when
/// the kind has no schema or the JSON does not fit it (a value of the wrong type, or a field the
/// schema lacks): the caller can answer in JSON instead.
common::Result<std::string> encodeObject(const nlohmann::json& object);

/// A protobuf request body as the JSON the API server's decoder would make of it, apiVersion and
/// kind taken from the envelope. NotFound when its kind has no schema; Invalid, with a message for
/// a 400, when it is not a well-formed envelope of a well-formed message, or when it carries a
/// field the schema lacks (kubesim would lose its data). Zero values of fields whose Go type is
/// not a pointer are left out, as the JSON encoder's omitempty does.
common::Result<nlohmann::json> decodeObject(std::string_view body);

/// One frame of a protobuf watch stream: a 4-byte big-endian length, then a meta/v1 WatchEvent
/// (not enveloped, as client-go's stream decoder expects) whose object is the enveloped object.
common::Result<std::string> encodeWatchEvent(std::string_view type, const nlohmann::json& object);

}  // namespace hetbench::kubesim::protobuf
