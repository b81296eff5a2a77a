#include "tests/bench/json_line.h"

#include <cmath>
#include <cstdio>

namespace ligature::bench {

std::string JsonQuote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        // Other control characters have no short escape in JSON; use \u00XX.
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

void JsonLine::Key(std::string_view key) {
  if (!first_) body_ += ',';
  first_ = false;
  body_ += JsonQuote(key);
  body_ += ':';
}

JsonLine& JsonLine::String(std::string_view key, const std::optional<std::string>& value) {
  Key(key);
  body_ += value ? JsonQuote(*value) : "null";
  return *this;
}

JsonLine& JsonLine::Number(std::string_view key, std::optional<double> value) {
  Key(key);
  // JSON has no NaN or infinity; a missing or broken figure is null.
  if (!value || !std::isfinite(*value)) {
    body_ += "null";
    return *this;
  }
  // Six significant digits resolve a 1 ms step to the nanosecond; the exponent form %g
  // falls back to for tiny or huge values is valid JSON too.
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", *value);
  body_ += buf;
  return *this;
}

JsonLine& JsonLine::Integer(std::string_view key, std::optional<long long> value) {
  Key(key);
  body_ += value ? std::to_string(*value) : "null";
  return *this;
}

}  // namespace ligature::bench
