// Rules of the repository's own sources that its compilers do not check, tested on the CPU so
// that CI also covers code only the GPU machine runs (the strategies' device glue).
//
// A range-for must not subscript a call's result: in `for (const auto& t : f(p)[0].trades)`
// the loop's range binds to a member of an element of f's returned vector, and C++20 keeps
// alive only a range expression's outermost temporary, not one reached through operator[]
// (P2718 changes that in C++23 only): the vector is destroyed before the first iteration and
// the loop reads freed memory. GCC 12 does not warn (clang's -Wdangling-gsl does). The GPU
// trade exports of exhaustion and ema_cross had that shape; the conformance harness read heap
// pointers as bar indices ("trades and per-symbol results from the GPU equal the CPU's").
// Bind the result to a name first: `const auto lists = f(p); for (... : lists[0].trades)`.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.hpp"

namespace {

namespace fs = std::filesystem;

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// The source with comments and string and character literals blanked (newlines kept).
std::string code_only(const std::string& s) {
  std::string out = s;
  const std::size_t n = s.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  std::size_t i = 0;
  while (i < n) {
    const char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      const std::size_t e = s.find('\n', i);
      const std::size_t end = e == std::string::npos ? n : e;
      blank(i, end);
      i = end;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t e = s.find("*/", i + 2);
      const std::size_t end = e == std::string::npos ? n : e + 2;
      blank(i, end);
      i = end;
    } else if (c == '"' && i > 0 && s[i - 1] == 'R' &&
               (i < 2 || !ident_char(s[i - 2]) || s[i - 2] == '8' || s[i - 2] == 'L' || s[i - 2] == 'u' ||
                s[i - 2] == 'U')) {
      // Raw string R"delim( ... )delim".
      const std::size_t open = s.find('(', i);
      if (open == std::string::npos) return out;
      const std::string close = ")" + s.substr(i + 1, open - i - 1) + "\"";
      const std::size_t e = s.find(close, open);
      const std::size_t end = e == std::string::npos ? n : e + close.size();
      blank(i, end);
      i = end;
    } else if (c == '"' || (c == '\'' && (i == 0 || !ident_char(s[i - 1]) || s[i - 1] == 'L' || s[i - 1] == 'u' ||
                                          s[i - 1] == 'U' || s[i - 1] == '8'))) {
      // A string or character literal (a ' after a digit is a digit separator: 1'000).
      std::size_t k = i + 1;
      while (k < n && s[k] != c && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
      const std::size_t end = k < n ? k + 1 : n;
      blank(i, end);
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

/// Line numbers (from 1) of range-for statements whose range expression subscripts a call's
/// result, `) [` (see the file comment).
std::vector<int> dangling_range_fors(const std::string& source) {
  const std::string s = code_only(source);
  std::vector<int> lines;
  const std::size_t n = s.size();
  for (std::size_t at = s.find("for"); at != std::string::npos; at = s.find("for", at + 3)) {
    if ((at > 0 && ident_char(s[at - 1])) || (at + 3 < n && ident_char(s[at + 3]))) continue;
    std::size_t open = at + 3;
    while (open < n && std::isspace(static_cast<unsigned char>(s[open])) != 0) ++open;
    if (open >= n || s[open] != '(') continue;
    // The header up to the matching ')', split at its top-level ';' and ':'.
    int depth = 0;
    std::size_t close = open, last_semicolon = open, semicolons = 0;
    for (; close < n; ++close) {
      const char c = s[close];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0) break;
      if (depth == 1 && c == ';') {
        ++semicolons;
        last_semicolon = close;
      }
    }
    if (close >= n || semicolons > 1) continue;  // unbalanced, or a classic for
    std::size_t colon = std::string::npos;
    depth = 0;
    for (std::size_t k = last_semicolon + 1; k < close; ++k) {
      const char c = s[k];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0 && c == ':') {
        if ((k + 1 < close && s[k + 1] == ':') || s[k - 1] == ':') continue;  // '::'
        colon = k;
        break;
      }
    }
    if (colon == std::string::npos) continue;
    for (std::size_t k = colon + 1; k < close; ++k) {
      if (s[k] != ')') continue;
      std::size_t next = k + 1;
      while (next < close && std::isspace(static_cast<unsigned char>(s[next])) != 0) ++next;
      if (next < close && s[next] == '[') {
        int line = 1;
        for (std::size_t q = 0; q < at; ++q) line += s[q] == '\n' ? 1 : 0;
        lines.push_back(line);
        break;
      }
    }
  }
  return lines;
}

}  // namespace

TEST_CASE("source rules: the range-for check finds a subscripted call result and nothing else", "[cpu][source]") {
  CHECK(dangling_range_fors("for (const auto& t : f(s, p, 1, {}, 64)[0].trades) g(t);") == std::vector<int>{1});
  CHECK(dangling_range_fors("int a;\nfor (auto& t :\n     make(1)  [k].x) {}") == std::vector<int>{2});
  CHECK(dangling_range_fors("for (int i = 0; auto& t : f()[0]) {}") == std::vector<int>{1});  // with an init-statement
  CHECK(dangling_range_fors("const auto lists = f(p);\nfor (const auto& t : lists[0].trades) g(t);").empty());
  CHECK(dangling_range_fors("for (const auto& e : registry().entries()) {}").empty());
  CHECK(dangling_range_fors("for (const auto& [k, v] : std::map<int, int>{}) {}").empty());
  CHECK(dangling_range_fors("for (std::size_t i = 0; i < f()[0].n; ++i) {}").empty());  // a classic for
  CHECK(dangling_range_fors("for (auto* v : {&a, &b}) d.add((*v)[i]);").empty());       // the body is not the range
  CHECK(dangling_range_fors("// for (auto& t : f()[0]) {}\n/* for (auto& t : f()[0]) */").empty());
  CHECK(dangling_range_fors("s = \"for (auto& t : f()[0])\"; c = ')'; n = 1'000;").empty());
  CHECK(dangling_range_fors("j = R\"x(for (auto& t : f()[0]) {} )\" )x\"; for_each(f()[0]);").empty());
}

TEST_CASE("source rules: no range-for iterates a subscripted call result", "[cpu][source]") {
  const fs::path root = tpeopt::testing::source_dir();
  std::size_t files = 0;
  std::ostringstream found;
  for (const char* dir :
       {"apps", "bench", "common", "engine", "fuzz", "gpu", "io", "selection", "strategies", "tests", "tpe"}) {
    if (!fs::is_directory(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".cuh"))
        continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      for (const int line : dangling_range_fors(text.str()))
        found << fs::relative(entry.path(), root).generic_string() << ":" << line << "\n";
    }
  }
  INFO("range-fors over a subscripted call result (bind the result to a name first):\n" << found.str());
  CHECK(files > 100);  // the sources were found
  CHECK(found.str().empty());
}
