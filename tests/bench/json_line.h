#pragma once
// Builds the one-line JSON object a benchmark prints on stdout. Keys keep the order they
// are added in, so every line has the same field order.

#include <optional>
#include <string>
#include <string_view>

namespace ligature::bench {

class JsonLine {
 public:
  // A string value; nullopt prints null.
  JsonLine& String(std::string_view key, const std::optional<std::string>& value);
  // A floating-point value with 6 significant digits; nullopt or non-finite prints null.
  JsonLine& Number(std::string_view key, std::optional<double> value);
  // An integer value; nullopt prints null.
  JsonLine& Integer(std::string_view key, std::optional<long long> value);

  // The finished object, without a trailing newline.
  std::string Finish() const { return body_ + "}"; }

 private:
  void Key(std::string_view key);

  std::string body_ = "{";
  bool first_ = true;
};

// `text` as a quoted JSON string, with quotes, backslashes and control characters escaped.
std::string JsonQuote(std::string_view text);

}  // namespace ligature::bench
