#include "json_io.h"

#include <cmath>
#include <limits>

namespace envhost {
namespace {

// nlohmann/json rejects NaN/Infinity. We rewrite those tokens (outside
// strings) into numeric literals no client writes, which underflow harmlessly
// in the lexer, and map them back from the raw token text in the SAX handler.
constexpr std::string_view kNaN = "-0.0e-9999991";
constexpr std::string_view kPosInf = "0.0e-9999992";
constexpr std::string_view kNegInf = "-0.0e-9999993";

bool has_special_tokens(std::string_view t) {
    return t.find("NaN") != std::string_view::npos || t.find("Infinity") != std::string_view::npos;
}

std::string rewrite_special_tokens(std::string_view in) {
    std::string out;
    out.reserve(in.size() + 32);
    bool in_string = false;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < in.size()) out += in[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out += c;
        } else if (in.compare(i, 3, "NaN") == 0) {
            out += kNaN;
            i += 2;
        } else if (in.compare(i, 8, "Infinity") == 0) {
            out += kPosInf;
            i += 7;
        } else if (in.compare(i, 9, "-Infinity") == 0) {
            out += kNegInf;
            i += 8;
        } else {
            out += c;
        }
    }
    return out;
}

class LimitedSax : public nlohmann::detail::json_sax_dom_parser<json> {
public:
    using Base = nlohmann::detail::json_sax_dom_parser<json>;
    explicit LimitedSax(json& root) : Base(root, true) {}

    bool number_float(double v, const std::string& raw) {
        if (raw == kNaN) v = std::numeric_limits<double>::quiet_NaN();
        else if (raw == kPosInf) v = std::numeric_limits<double>::infinity();
        else if (raw == kNegInf) v = -std::numeric_limits<double>::infinity();
        return Base::number_float(v, raw);
    }
    bool start_object(std::size_t n) { return enter() && Base::start_object(n); }
    bool end_object() { --depth_; return Base::end_object(); }
    bool start_array(std::size_t n) { return enter() && Base::start_array(n); }
    bool end_array() { --depth_; return Base::end_array(); }

    bool too_deep = false;

private:
    bool enter() {
        if (++depth_ > kMaxJsonDepth) {
            too_deep = true;
            return false;
        }
        return true;
    }
    int depth_ = 0;
};

} // namespace

bool parse_json(std::string_view text, json& out, JsonParseError& err) {
    std::string rewritten;
    if (has_special_tokens(text)) {
        rewritten = rewrite_special_tokens(text);
        text = rewritten;
    }
    json result;
    LimitedSax sax(result);
    try {
        if (!json::sax_parse(text.begin(), text.end(), &sax)) {
            err.message = sax.too_deep ? "document nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"
                                       : "invalid JSON document";
            err.byte_offset = 0;
            return false;
        }
    } catch (const json::parse_error& e) {
        err.message = e.what();
        // nlohmann prefixes "[json.exception.parse_error.101] "; keep the words.
        const auto pos = err.message.find("] ");
        if (pos != std::string::npos) err.message = err.message.substr(pos + 2);
        err.byte_offset = e.byte > 0 ? e.byte - 1 : 0;
        return false;
    } catch (const json::exception& e) {
        err.message = e.what();
        err.byte_offset = 0;
        return false;
    }
    out = std::move(result);
    return true;
}

} // namespace envhost
