#pragma once
// Reads a fuzzer's bytes as small typed values. Past the end every read returns zero, so
// any input decodes to something.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace ligature::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  size_t remaining() const { return size_ - pos_; }

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(Byte() | (Byte() << 8)); }

  // A number from a byte: mostly small values in [-10, 10] with a 0.1 step, else one of the
  // values that break arithmetic (zero, huge, tiny, non-finite).
  double Number() {
    static constexpr double kSpecial[] = {
        0.0, -0.0, 1e-300, 5e-324, 1e-9, 1e5, 1e6, 1e7, 1e12, 1e300, -1e300,
        std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()};
    const uint8_t b = Byte();
    if (b < 201) return (static_cast<int>(b) - 100) / 10.0;
    if (b < 201 + 16) return kSpecial[b - 201];
    double raw = 0.0;  // the remaining selectors read a raw double
    for (int i = 0; i < 8; ++i) reinterpret_cast<uint8_t*>(&raw)[i] = Byte();
    return raw;
  }

  // Up to `max` bytes, length first (two bytes).
  std::string Bytes(size_t max) {
    size_t n = U16();
    if (n > max) n = max;
    if (n > remaining()) n = remaining();
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Appends values in the form FuzzInput reads them (for seed corpora).
class FuzzOutput {
 public:
  void Byte(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void U16(uint16_t v) {
    Byte(v & 0xff);
    Byte(v >> 8);
  }
  // `v` rounded to the [-10, 10] grid Number() reads from one byte.
  void SmallNumber(double v) {
    int b = static_cast<int>(v * 10.0 + (v < 0 ? -0.5 : 0.5)) + 100;
    Byte(static_cast<uint8_t>(b < 0 ? 0 : (b > 200 ? 200 : b)));
  }
  void Bytes(const std::string& s) {
    U16(static_cast<uint16_t>(s.size()));
    out_ += s;
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

}  // namespace ligature::fuzz
