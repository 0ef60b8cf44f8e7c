#pragma once

// Included by the users of cpprestsdk only (the REST client and `hetbench logs`): it brings
// cpprestsdk's headers with it.

#include <cpprest/http_client.h>

#include <chrono>
#include <string>

#include "hetbench/kube/credentials.h"

namespace hetbench::kube {

/// A cpprestsdk client configuration for one server: the request timeout, the CA that signs its
/// certificate (the system's when empty) unless `insecureSkipTlsVerify`, and the client
/// certificate of `creds` when they carry one.
web::http::client::http_client_config httpClientConfig(std::chrono::milliseconds timeout,
                                                       const std::string& caPem,
                                                       bool insecureSkipTlsVerify,
                                                       const Credentials& creds);

}  // namespace hetbench::kube
