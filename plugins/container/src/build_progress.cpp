// build_progress.cpp — step counting and error capture for POST /build streams.
#include "build_progress.h"

#include <cctype>
#include <charconv>

namespace vc::container {
namespace {

constexpr std::size_t kTailLines = 12;
constexpr std::size_t kInstructionChars = 60;

bool starts_with_step(std::string_view text, std::size_t& after) {
  // "Step " (Docker) or "STEP " (Podman), case-insensitively.
  if (text.size() < 5) return false;
  for (std::size_t i = 0; i < 4; ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != "step"[i]) return false;
  }
  if (text[4] != ' ') return false;
  after = 5;
  return true;
}

// Parses "<n>/<m>" at `at`; returns the index after it.
std::optional<std::size_t> parse_fraction(std::string_view text, std::size_t at, std::int64_t& n,
                                          std::int64_t& m) {
  const char* begin = text.data() + at;
  const char* end = text.data() + text.size();
  auto first = std::from_chars(begin, end, n);
  if (first.ec != std::errc() || first.ptr == end || *first.ptr != '/') return std::nullopt;
  auto second = std::from_chars(first.ptr + 1, end, m);
  if (second.ec != std::errc() || n < 1 || m < n) return std::nullopt;
  return static_cast<std::size_t>(second.ptr - text.data());
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  return std::string(text);
}

}  // namespace

bool BuildProgress::feed(std::string_view line) {
  auto document = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return false;
  if (auto error = document.find("error"); error != document.end() && error->is_string()) {
    error_ = trimmed(error->get<std::string>());
    return false;
  }
  auto stream = document.find("stream");
  if (stream == document.end() || !stream->is_string()) return false;
  const std::string& text = stream->get_ref<const std::string&>();
  note_output(text);
  std::size_t after = 0;
  std::int64_t n = 0;
  std::int64_t m = 0;
  if (!starts_with_step(text, after)) return false;
  auto end = parse_fraction(text, after, n, m);
  if (!end || n <= step_) return false;
  step_ = n;
  steps_ = m;
  std::string_view rest = std::string_view(text).substr(*end);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == ':')) rest.remove_prefix(1);
  instruction_ = trimmed(rest.substr(0, rest.find('\n')));
  if (instruction_.size() > kInstructionChars) {
    instruction_ = instruction_.substr(0, kInstructionChars - 3) + "...";
  }
  return true;
}

nlohmann::json BuildProgress::event() const {
  std::string message = "Building the desktop image " + image_;
  if (steps_ == 0) return nlohmann::json{{"progress", 0}, {"message", message}};
  message += ": step " + std::to_string(step_) + "/" + std::to_string(steps_);
  if (!instruction_.empty()) message += " (" + instruction_ + ")";
  return nlohmann::json{{"progress", step_ - 1}, {"total", steps_}, {"message", message}};
}

std::string BuildProgress::tail() const {
  std::string text;
  for (const auto& line : tail_) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  return text;
}

void BuildProgress::note_output(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line = trimmed(text.substr(start, end - start));
    if (!line.empty()) {
      tail_.push_back(std::move(line));
      if (tail_.size() > kTailLines) tail_.pop_front();
    }
    start = end + 1;
  }
}

}  // namespace vc::container
