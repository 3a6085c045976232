// The library floor: the same echo on Poco::Net's HTTPServer + WebSocket, one
// thread per connection, as a Poco-based server is built. The gap between this
// and the epoll floor is what the library and threading model cost.
//
//   ws-echo-poco PORT          (listens on 127.0.0.1)
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/ThreadPool.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace Poco::Net;

namespace {

class EchoHandler : public HTTPRequestHandler {
 public:
  void handleRequest(HTTPServerRequest& req, HTTPServerResponse& resp) override {
    try {
      WebSocket ws(req, resp);
      ws.setNoDelay(true);
      ws.setReceiveTimeout(Poco::Timespan(3600, 0));
      std::vector<char> buf(1 << 20);
      for (;;) {
        int flags = 0;
        int n = ws.receiveFrame(buf.data(), int(buf.size()), flags);
        const int op = flags & WebSocket::FRAME_OP_BITMASK;
        if (n <= 0 && op != WebSocket::FRAME_OP_PING) break;
        if (op == WebSocket::FRAME_OP_CLOSE) break;
        if (op == WebSocket::FRAME_OP_PING)
          ws.sendFrame(buf.data(), n, WebSocket::FRAME_FLAG_FIN | WebSocket::FRAME_OP_PONG);
        else if (op == WebSocket::FRAME_OP_TEXT || op == WebSocket::FRAME_OP_BINARY)
          ws.sendFrame(buf.data(), n, WebSocket::FRAME_FLAG_FIN | op);
      }
    } catch (const Poco::Exception&) {
      // The peer went away: nothing to report for a floor measurement.
    }
  }
};

class Factory : public HTTPRequestHandlerFactory {
 public:
  HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override { return new EchoHandler; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ws-echo-poco PORT\n");
    return 2;
  }
  Poco::ThreadPool pool(16, 2048);  // one thread per live connection, as scenarios need
  auto* params = new HTTPServerParams;
  params->setMaxThreads(2048);
  params->setMaxQueued(4096);
  ServerSocket socket(SocketAddress("127.0.0.1", Poco::UInt16(std::atoi(argv[1]))), 4096);
  HTTPServer server(new Factory, pool, socket, params);
  server.start();
  for (;;) pause();
}
