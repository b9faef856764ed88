// argv_split.cpp — the two quoting dialects the launcher meets.
#include "argv_split.h"

namespace vc::desktop_agent {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

std::optional<std::vector<std::string>> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (blank(c)) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) return std::nullopt;
      word += text.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            (text[j + 1] == '$' || text[j + 1] == '`' || text[j + 1] == '"' ||
             text[j + 1] == '\\' || text[j + 1] == '\n')) {
          ++j;
          if (text[j] != '\n') word.push_back(text[j]);
        } else {
          word.push_back(text[j]);
        }
      }
      if (j >= text.size()) return std::nullopt;
      i = j;
    } else if (c == '\\') {
      if (i + 1 < text.size()) {
        ++i;
        if (text[i] != '\n') word.push_back(text[i]);
      }
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::string unescape_entry_value(const std::string& value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size()) {
      const char next = value[++i];
      switch (next) {
        case 's': out.push_back(' '); break;
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case '\\': out.push_back('\\'); break;
        default:
          out.push_back('\\');
          out.push_back(next);
      }
    } else {
      out.push_back(value[i]);
    }
  }
  return out;
}

std::optional<std::vector<std::string>> exec_arguments(const std::string& exec) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  bool only_field_codes = true;  // a word that was nothing but field codes is dropped
  auto end_word = [&] {
    if (in_word && !(only_field_codes && word.empty())) words.push_back(word);
    word.clear();
    in_word = false;
    only_field_codes = true;
  };
  for (std::size_t i = 0; i < exec.size(); ++i) {
    const char c = exec[i];
    if (c == ' ' || c == '\t') {
      end_word();
      continue;
    }
    in_word = true;
    if (c == '"') {
      only_field_codes = false;
      std::size_t j = i + 1;
      for (; j < exec.size() && exec[j] != '"'; ++j) {
        if (exec[j] == '\\' && j + 1 < exec.size()) ++j;
        word.push_back(exec[j]);
      }
      if (j >= exec.size()) return std::nullopt;
      i = j;
    } else if (c == '%' && i + 1 < exec.size()) {
      const char code = exec[++i];
      if (code == '%') {
        word.push_back('%');
        only_field_codes = false;
      }
      // Every other field code stands for files, URLs, the icon or the name: the agent
      // passes none, so it vanishes.
    } else {
      word.push_back(c);
      only_field_codes = false;
    }
  }
  end_word();
  return words;
}

}  // namespace vc::desktop_agent
