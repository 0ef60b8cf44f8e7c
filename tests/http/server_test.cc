#include "hetbench/http/server.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/test_client.h"

namespace hetbench::http {
namespace {

using namespace std::chrono_literals;
using testing::Mailbox;
using testing::Response;
using testing::TestConnection;

std::unique_ptr<Server> startServer(Handler handler, ServerOptions options = {}) {
  auto server = Server::start(std::move(options), std::move(handler));
  EXPECT_TRUE(server.isOk()) << server.status().toString();
  return server.isOk() ? std::move(server).value() : nullptr;
}

/// A handler that records each request and answers 200 with the body echoed.
Handler echoHandler(Mailbox<Request>& requests) {
  return [&requests](const Request& request, ResponseWriter& writer) {
    requests.put(request);
    writer.send(200, {{"Content-Type", "text/plain"}, {"X-Method", request.method}}, request.body);
  };
}

std::unique_ptr<TestConnection> connectTo(const Server& server) {
  auto connection = TestConnection::connect(server.port());
  EXPECT_NE(connection, nullptr);
  return connection;
}

// Verifies that percent-decoding turns '+' into a space only in query components and leaves
// malformed escapes as they are.
TEST(PercentDecode, DecodesEscapes) {
  EXPECT_EQ(percentDecode("a%3Db%2Cc+in+%28x%29", true), "a=b,c in (x)");
  EXPECT_EQ(percentDecode("a+b%20c", false), "a+b c");
  EXPECT_EQ(percentDecode("%zz%4%", true), "%zz%4%");
  EXPECT_EQ(percentDecode("%e2%9C%93", false), "\xE2\x9C\x93");
}

// Verifies that a GET request reaches the handler with its path, query, headers and peer
// decoded, and that the answer carries Content-Length and Date.
TEST(Server, GetDecodesPathQueryAndHeaders) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  const std::string target =
      "/api/v1/namespaces/a%20b/pods?labelSelector=a%3Db%2Cc+in+%28x%29&watch=true&x=1&x=2"
      "&flag&plus=%2B&&empty=";
  ASSERT_TRUE(client->sendAll(testing::getRequest(target, "X-Custom: one\r\nx-custom: two\r\n")));
  auto response = client->readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("content-length"), "0");
  EXPECT_FALSE(response->header("date").empty());
  EXPECT_EQ(response->header("x-method"), "GET");

  auto request = requests.take();
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->method, "GET");
  EXPECT_EQ(request->target, target);
  EXPECT_EQ(request->path, "/api/v1/namespaces/a b/pods");
  EXPECT_EQ(request->queryParam("labelSelector"), "a=b,c in (x)");
  EXPECT_EQ(request->queryParam("watch"), "true");
  EXPECT_EQ(request->queryParam("flag"), "");
  EXPECT_EQ(request->queryParam("plus"), "+");
  EXPECT_EQ(request->queryParam("empty"), "");
  EXPECT_EQ(request->queryParam("missing"), std::nullopt);
  EXPECT_EQ(request->query.count("x"), 2u);
  const auto [first, last] = request->query.equal_range("x");
  ASSERT_NE(first, last);
  EXPECT_EQ(first->second, "1");
  EXPECT_EQ(std::next(first)->second, "2");
  EXPECT_EQ(request->header("USER-AGENT"), "kubesim-test");
  EXPECT_EQ(request->headers.at("x-custom"), "one, two");
  EXPECT_EQ(request->header("absent"), "");
  EXPECT_TRUE(request->remoteAddress.starts_with("127.0.0.1:")) << request->remoteAddress;
  EXPECT_FALSE(request->clientCommonName.has_value());
}

// Verifies that a POST body framed by Content-Length arrives whole.
TEST(Server, PostBodyByContentLength) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  const std::string body = R"({"kind":"Pod","metadata":{"name":"p"}})";
  ASSERT_TRUE(
      client->sendAll("POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
                      "Content-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body));
  auto response = client->readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, body);
  auto request = requests.take();
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->method, "POST");
  EXPECT_EQ(request->body, body);
}

// Verifies that a chunked request body, with a chunk extension and a trailer, is joined.
TEST(Server, PostBodyByChunkedEncoding) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(
      client->sendAll("PATCH /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "5\r\nhello\r\n"
                      "7;ext=1\r\n, world\r\n"
                      "0\r\nX-Trailer: t\r\n\r\n"));
  auto response = client->readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "hello, world");
  auto request = requests.take();
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->body, "hello, world");
}

// Verifies that two requests share one kept-alive connection, and that "Connection: close"
// makes the server close it after the answer.
TEST(Server, KeepAliveAndConnectionClose) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll(testing::getRequest("/one")));
  auto first = client->readResponse();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->header("connection"), "");
  ASSERT_TRUE(client->sendAll(testing::getRequest("/two", "Connection: close\r\n")));
  auto second = client->readResponse();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(second->header("connection"), "close");
  EXPECT_TRUE(client->readsEof());

  auto one = requests.take();
  auto two = requests.take();
  ASSERT_TRUE(one.has_value() && two.has_value());
  EXPECT_EQ(one->path, "/one");
  EXPECT_EQ(two->path, "/two");
  EXPECT_EQ(one->remoteAddress, two->remoteAddress);
}

// Verifies that pipelined requests are answered in order on one connection.
TEST(Server, PipelinedRequests) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nA" +
                              testing::getRequest("/b")));
  auto first = client->readResponse();
  auto second = client->readResponse();
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->body, "A");
  EXPECT_EQ(second->status, 200);
}

// Verifies that "Expect: 100-continue" is answered before the client sends its body.
TEST(Server, ExpectContinue) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll(
      "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"));
  EXPECT_EQ(client->readUntil("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(client->sendAll("data"));
  auto response = client->readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "data");
}

// Verifies that bodies over maxBodyBytes, by either framing, get 413 with a Kubernetes Status
// and a closed connection, without reaching the handler.
TEST(Server, TooLargeBodyIs413) {
  Mailbox<Request> requests;
  ServerOptions options;
  options.maxBodyBytes = 16;
  auto server = startServer(echoHandler(requests), options);
  ASSERT_NE(server, nullptr);
  const std::string big(64, 'x');
  const std::vector<std::string> attempts = {
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 64\r\n\r\n" + big,
      "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n" +
          big.substr(0, 16) + "\r\n1\r\nx\r\n0\r\n\r\n",
  };
  for (const std::string& attempt : attempts) {
    auto client = connectTo(*server);
    ASSERT_NE(client, nullptr);
    ASSERT_TRUE(client->sendAll(attempt));
    auto response = client->readResponse();
    ASSERT_TRUE(response.has_value()) << attempt;
    EXPECT_EQ(response->status, 413);
    EXPECT_EQ(response->header("content-type"), "application/json");
    EXPECT_EQ(response->body,
              R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
              R"("message":"the request is too large","reason":"RequestEntityTooLarge",)"
              R"("code":413})");
    EXPECT_TRUE(client->readsEof());
  }
  EXPECT_FALSE(requests.take(0ms).has_value());
}

// Verifies that malformed requests get 400 and a closed connection.
TEST(Server, MalformedRequestIs400) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  const std::vector<std::string> malformed = {
      "GARBAGE\r\n\r\n",
      "GET /x HTTP/2.0\r\nHost: x\r\n\r\n",
      "GET /x HTTP/1.1\r\n\r\n",  // no Host
      "GET /x HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
      "GET /x HTTP/1.1\r\nHost: x\r\n folded: header\r\n\r\n",
      "GET  /x HTTP/1.1\r\nHost: x\r\n\r\n",
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
      "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
  };
  for (const std::string& request : malformed) {
    auto client = connectTo(*server);
    ASSERT_NE(client, nullptr);
    ASSERT_TRUE(client->sendAll(request));
    auto response = client->readResponse();
    ASSERT_TRUE(response.has_value()) << request;
    EXPECT_EQ(response->status, 400) << request;
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_TRUE(client->readsEof()) << request;
  }
  EXPECT_FALSE(requests.take(0ms).has_value());
}

// Verifies that streamed chunks reach the client one by one while the handler still runs,
// and that the stream ends with the last chunk when the handler returns.
TEST(Server, StreamingChunksArriveWhileHandlerRuns) {
  Mailbox<int> proceed;
  Mailbox<bool> finished;
  auto server = startServer([&](const Request& request, ResponseWriter& writer) {
    if (request.path != "/watch") {
      writer.send(200, {}, "plain");
      return;
    }
    EXPECT_TRUE(writer.startStream(200, {{"Content-Type", "application/json"}}));
    EXPECT_FALSE(writer.send(200, {}, "too late"));
    for (const char* chunk : {"one", "two", "three"}) {
      EXPECT_TRUE(writer.write(chunk));
      if (std::string_view(chunk) != "three" && !proceed.take().has_value()) break;
    }
    finished.put(true);
  });
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll(testing::getRequest("/watch")));
  auto head = client->readHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("transfer-encoding"), "chunked");
  EXPECT_EQ(head->header("content-length"), "");
  EXPECT_EQ(client->readChunk(), "one");
  proceed.put(1);
  EXPECT_EQ(client->readChunk(), "two");
  proceed.put(2);
  EXPECT_EQ(client->readChunk(), "three");
  EXPECT_EQ(client->readChunk(), "");
  EXPECT_TRUE(finished.take().has_value());

  // The connection stays usable after a finished stream.
  ASSERT_TRUE(client->sendAll(testing::getRequest("/again")));
  auto again = client->readResponse();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->body, "plain");
}

// Verifies that closed() turns true once the client disconnects in the middle of a stream.
TEST(Server, ClosedAfterClientDisconnects) {
  Mailbox<bool> closedBeforeDisconnect;
  Mailbox<bool> sawClose;
  auto server = startServer([&](const Request&, ResponseWriter& writer) {
    writer.startStream(200, {});
    writer.write("hello");
    closedBeforeDisconnect.put(writer.closed());
    // A watch handler's loop: wait for events (here none) and check the client now and then.
    Mailbox<int> events;
    const auto deadline = std::chrono::steady_clock::now() + testing::kTimeout;
    while (!writer.closed() && std::chrono::steady_clock::now() < deadline) {
      (void)events.take(5ms);
    }
    sawClose.put(writer.closed());
    EXPECT_FALSE(writer.write("after close"));
  });
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll(testing::getRequest("/watch")));
  ASSERT_TRUE(client->readHead().has_value());
  EXPECT_EQ(client->readChunk(), "hello");
  EXPECT_EQ(closedBeforeDisconnect.take(), false);
  client->close();
  EXPECT_EQ(sawClose.take(), true);
}

// Verifies that stop() ends a handler blocked in a streaming loop promptly and joins every
// thread of the server.
TEST(Server, StopEndsStreamingHandlers) {
  // ThreadSanitizer starts a helper thread with the first thread: start one before counting.
  std::thread([] {}).join();
  const int threadsBefore = testing::threadCount();
  Mailbox<bool> handlerReturned;
  auto server = startServer([&](const Request&, ResponseWriter& writer) {
    writer.startStream(200, {});
    Mailbox<int> events;
    while (!writer.closed()) {
      if (!writer.write("tick\n")) break;
      (void)events.take(10ms);
    }
    handlerReturned.put(true);
  });
  ASSERT_NE(server, nullptr);
  auto streaming = connectTo(*server);
  auto idle = connectTo(*server);  // a kept-alive connection waiting for its next request
  ASSERT_NE(streaming, nullptr);
  ASSERT_NE(idle, nullptr);
  ASSERT_TRUE(streaming->sendAll(testing::getRequest("/watch")));
  ASSERT_TRUE(streaming->readHead().has_value());
  EXPECT_EQ(streaming->readChunk(), "tick\n");

  EXPECT_GE(testing::threadCount(), threadsBefore + 3);  // accept and two connections

  const auto start = std::chrono::steady_clock::now();
  server->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(handlerReturned.take(0ms).has_value());
  EXPECT_EQ(testing::threadCount(), threadsBefore);
  server->stop();  // idempotent
  server.reset();
}

// Verifies that a handler that answers nothing, or throws, yields 500, and that a second
// answer is refused.
TEST(Server, MissingAnswerIs500) {
  auto server = startServer([](const Request& request, ResponseWriter& writer) {
    if (request.path == "/throw") throw std::runtime_error("boom");
    if (request.path == "/twice") {
      EXPECT_TRUE(writer.send(201, {{"Date", "Mon, 01 Jan 2024 00:00:00 GMT"}}, "first"));
      EXPECT_FALSE(writer.send(202, {}, "second"));
      EXPECT_FALSE(writer.startStream(202, {}));
      EXPECT_FALSE(writer.write("x"));
    }
  });
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  for (const char* path : {"/nothing", "/throw"}) {
    ASSERT_TRUE(client->sendAll(testing::getRequest(path)));
    auto response = client->readResponse();
    ASSERT_TRUE(response.has_value()) << path;
    EXPECT_EQ(response->status, 500) << path;
  }
  ASSERT_TRUE(client->sendAll(testing::getRequest("/twice")));
  auto response = client->readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "first");
  EXPECT_EQ(response->header("date"), "Mon, 01 Jan 2024 00:00:00 GMT");
}

// Verifies that a connection beyond maxConnections is answered 503 and closed when every
// admitted connection is inside a request, and that the admitted one keeps working.
TEST(Server, ConnectionsBeyondTheCapGet503WhileAllAreInRequests) {
  Mailbox<int> entered;
  Mailbox<int> release;
  ServerOptions options;
  options.maxConnections = 1;
  auto server = startServer(
      [&](const Request& request, ResponseWriter& writer) {
        if (request.path == "/hold") {
          entered.put(1);
          (void)release.take();
        }
        writer.send(200, {}, request.path);
      },
      options);
  ASSERT_NE(server, nullptr);
  auto admitted = connectTo(*server);
  ASSERT_NE(admitted, nullptr);
  ASSERT_TRUE(admitted->sendAll(testing::getRequest("/hold")));
  ASSERT_TRUE(entered.take().has_value());

  auto rejected = connectTo(*server);
  ASSERT_NE(rejected, nullptr);
  auto answer = rejected->readResponse();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 503);
  EXPECT_TRUE(rejected->readsEof());

  release.put(1);
  auto held = admitted->readResponse();
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->body, "/hold");
  ASSERT_TRUE(admitted->sendAll(testing::getRequest("/second")));
  auto second = admitted->readResponse();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status, 200);
}

// Verifies that at maxConnections the connection that has waited longest for a request makes
// room for a new one, which is served.
TEST(Server, IdleConnectionGivesWayAtTheCap) {
  Mailbox<Request> requests;
  ServerOptions options;
  options.maxConnections = 2;
  auto server = startServer(echoHandler(requests), options);
  ASSERT_NE(server, nullptr);
  // Neither sends anything yet, so both wait for a request from their accept on, in order.
  auto oldest = connectTo(*server);
  auto newer = connectTo(*server);
  ASSERT_TRUE(oldest != nullptr && newer != nullptr);

  auto newest = connectTo(*server);
  ASSERT_NE(newest, nullptr);
  ASSERT_TRUE(newest->sendAll(testing::getRequest("/c")));
  auto answer = newest->readResponse();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 200);
  EXPECT_TRUE(oldest->closedByServer());
  ASSERT_TRUE(newer->sendAll(testing::getRequest("/d")));
  auto stillServed = newer->readResponse();
  ASSERT_TRUE(stillServed.has_value());
  EXPECT_EQ(stillServed->status, 200);
}

// Verifies that maxConnectionsPerClient makes one client's oldest waiting connection give way
// to its new one.
TEST(Server, PerClientCapMakesTheClientsOldestGiveWay) {
  Mailbox<Request> requests;
  ServerOptions options;
  options.maxConnectionsPerClient = 2;
  auto server = startServer(echoHandler(requests), options);
  ASSERT_NE(server, nullptr);
  auto first = connectTo(*server);
  auto second = connectTo(*server);
  ASSERT_TRUE(first != nullptr && second != nullptr);
  auto third = connectTo(*server);
  ASSERT_NE(third, nullptr);
  ASSERT_TRUE(third->sendAll(testing::getRequest("/3")));
  auto answer = third->readResponse();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 200);
  EXPECT_TRUE(first->closedByServer());
  ASSERT_TRUE(second->sendAll(testing::getRequest("/2")));
  auto stillServed = second->readResponse();
  ASSERT_TRUE(stillServed.has_value());
  EXPECT_EQ(stillServed->status, 200);
}

// Verifies that a thousand connections that send nothing cannot keep a server of 64 from
// answering a new request: each new connection takes the place of the longest-waiting one.
TEST(Server, ThousandSilentConnectionsDoNotStarveARequest) {
  rlimit files{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
  if (files.rlim_cur < 2200 && files.rlim_max >= 2200) {
    files.rlim_cur = 2200;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  }
  if (files.rlim_cur < 2200)
    GTEST_SKIP() << "needs 2200 open files, the limit is " << files.rlim_max;
  Mailbox<Request> requests;
  ServerOptions options;
  options.maxConnections = 64;
  auto server = startServer(echoHandler(requests), options);
  ASSERT_NE(server, nullptr);
  std::vector<std::unique_ptr<TestConnection>> silent;
  for (int i = 0; i < 1000; ++i) {
    silent.push_back(connectTo(*server));
    ASSERT_NE(silent.back(), nullptr);
  }
  auto answer = testing::get(server->port(), "/healthz");
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 200);
  EXPECT_TRUE(silent.front()->closedByServer());
}

// Verifies that a connection that sends no request, or its head too slowly, is closed at the
// header timeout, and a kept-alive one at the idle timeout.
TEST(Server, SilentSlowAndIdleConnectionsAreClosed) {
  Mailbox<Request> requests;
  ServerOptions options;
  options.headerTimeout = 300ms;
  options.idleTimeout = 300ms;
  auto server = startServer(echoHandler(requests), options);
  ASSERT_NE(server, nullptr);

  auto silent = connectTo(*server);
  ASSERT_NE(silent, nullptr);
  EXPECT_TRUE(silent->closedByServer());

  auto slow = connectTo(*server);
  ASSERT_NE(slow, nullptr);
  ASSERT_TRUE(slow->sendAll("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  for (int i = 0; i < 20; ++i) {  // a byte every 50 ms: 1 s in all, past the 300 ms deadline
    if (!slow->sendAll("a")) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(slow->closedByServer());
  EXPECT_FALSE(requests.take(0ms).has_value());

  auto idle = connectTo(*server);
  ASSERT_NE(idle, nullptr);
  ASSERT_TRUE(idle->sendAll(testing::getRequest("/once")));
  ASSERT_TRUE(idle->readResponse().has_value());
  EXPECT_TRUE(idle->closedByServer());
}

// Verifies that a body that does not arrive within the body timeout ends the connection
// without reaching the handler.
TEST(Server, SlowBodyIsCutAtTheBodyTimeout) {
  Mailbox<Request> requests;
  ServerOptions options;
  options.bodyTimeout = 300ms;
  auto server = startServer(echoHandler(requests), options);
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"));
  EXPECT_TRUE(client->closedByServer());
  EXPECT_FALSE(requests.take(0ms).has_value());
}

// Verifies that a client that stops reading a stream is dropped after the write timeout:
// the handler's writes fail instead of blocking for ever.
TEST(Server, ClientThatStopsReadingIsDropped) {
  Mailbox<int> writes;
  ServerOptions options;
  options.writeTimeout = 300ms;
  auto server = startServer(
      [&](const Request&, ResponseWriter& writer) {
        const std::string chunk(64 * 1024, 'x');
        int written = 0;
        if (writer.startStream(200, {})) {
          while (writer.write(chunk)) ++written;
        }
        writes.put(written);
      },
      options);
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll(testing::getRequest("/stream")));
  const auto written = writes.take();
  ASSERT_TRUE(written.has_value()) << "the handler's writes never failed";
  EXPECT_GT(*written, 0);
}

// Verifies that an HTTP/1.0 request is answered and its connection closed.
TEST(Server, Http10ClosesAfterAnswer) {
  Mailbox<Request> requests;
  auto server = startServer(echoHandler(requests));
  ASSERT_NE(server, nullptr);
  auto client = connectTo(*server);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll("GET /old HTTP/1.0\r\n\r\n"));
  auto response = client->readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("connection"), "close");
  EXPECT_TRUE(client->readsEof());
}

// Verifies that start() reports a port already in use instead of failing silently.
TEST(Server, BusyPortIsAnError) {
  Mailbox<Request> requests;
  auto first = startServer(echoHandler(requests));
  ASSERT_NE(first, nullptr);
  ServerOptions options;
  options.port = first->port();
  auto second = Server::start(options, echoHandler(requests));
  ASSERT_FALSE(second.isOk());
  EXPECT_TRUE(second.status().isUnavailable()) << second.status().toString();
}

}  // namespace
}  // namespace hetbench::http
