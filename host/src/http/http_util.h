// Small helpers for JSON HTTP responses and bounded request bodies.
// Stateless; safe from any request-handler thread.
#pragma once

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include <string>

namespace envhost::http {

using json = nlohmann::json;

void send_json(Poco::Net::HTTPServerResponse& resp, int status, const json& body);
// {"detail": message}
void send_detail(Poco::Net::HTTPServerResponse& resp, int status, const std::string& message);

enum class BodyStatus { Ok, TooLarge };
// Reads the whole body, refusing more than limit bytes.
BodyStatus read_body(Poco::Net::HTTPServerRequest& req, std::size_t limit, std::string& out);

bool is_websocket_upgrade(const Poco::Net::HTTPServerRequest& req);

} // namespace envhost::http
