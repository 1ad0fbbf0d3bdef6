#include "io/csplib.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/errors.hpp"

namespace nqc {
namespace {

// "key = value" on one line; returns the value text, or nullopt when the line is another key.
std::optional<std::string> value_of(const std::string& line, const std::string& key) {
  const auto eq = line.find('=');
  if (eq == std::string::npos) return std::nullopt;
  std::string name = line.substr(0, eq);
  name.erase(0, name.find_first_not_of(" \t"));
  name.erase(name.find_last_not_of(" \t") + 1);
  if (name != key) return std::nullopt;
  std::string value = line.substr(eq + 1);
  value.erase(0, value.find_first_not_of(" \t"));
  value.erase(value.find_last_not_of(" \t\r") + 1);
  return value;
}

long long integer(const std::string& text, const std::string& where, const std::string& what) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw InputError(where + ": expected " + what + ", got '" + text + "'");
  return v;
}

}  // namespace

ParamInstance parse_param(const std::string& text, const std::string& source, std::optional<int> diags) {
  std::optional<long long> n, numdiags;
  std::optional<nlohmann::json> list;
  int list_line = 0;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = source + ":" + std::to_string(number);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (auto v = value_of(line, "n")) {
      n = integer(*v, where, "n = a board size >= 1");
      if (*n < 1 || *n > 2147483647) throw InputError(where + ": expected n = a board size >= 1, got " + *v);
    } else if (auto d = value_of(line, "numdiags")) {
      numdiags = integer(*d, where, "numdiags = a count >= 0");
      if (*numdiags < 0) throw InputError(where + ": expected numdiags = a count >= 0, got " + *d);
    } else if (auto l = value_of(line, "diags")) {
      try {
        list = nlohmann::json::parse(*l);
      } catch (const nlohmann::json::parse_error&) {
        throw InputError(where + ": malformed diags list (expected [[index, 0 or 1], ...])");
      }
      list_line = number;
    } else {
      throw InputError(where + ": expected 'n = ', 'numdiags = ' or 'diags = ', got '" + line.substr(0, 40) + "'");
    }
  }
  for (const auto& [have, key] : {std::pair{n.has_value(), "n"}, {numdiags.has_value(), "numdiags"}, {list.has_value(), "diags"}})
    if (!have) throw InputError(source + ": missing line '" + key + " = ...'");
  const std::string where = source + ":" + std::to_string(list_line);
  if (!list->is_array()) throw InputError(where + ": malformed diags list (expected [[index, 0 or 1], ...])");
  if (static_cast<long long>(list->size()) != *numdiags)
    throw InputError(where + ": the diags list has " + std::to_string(list->size()) + " pairs, numdiags says " +
                     std::to_string(*numdiags));
  const int use = diags.value_or(static_cast<int>(*numdiags));
  if (use < 0) throw InputError("--diags: expected 0..numdiags, got " + std::to_string(use));
  if (use > *numdiags)
    throw InputError(source + ": --diags " + std::to_string(use) + " is above numdiags = " + std::to_string(*numdiags));
  ParamInstance out;
  out.board = Composition(static_cast<Index>(*n));
  out.numdiags = static_cast<int>(*numdiags);
  out.used = use;
  const long long last = 2 * *n - 2;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& pair = (*list)[i];
    const std::string item = where + ": diags[" + std::to_string(i) + "]";
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer())
      throw InputError(item + ": expected a pair [index, 0 or 1], got " + pair.dump());
    const long long a = pair[0].get<long long>(), type = pair[1].get<long long>();
    if (type != 0 && type != 1) throw InputError(item + ": expected type 0 (difference) or 1 (sum), got " + std::to_string(type));
    if (a < 0 || a > last)
      throw InputError(item + ": diagonal index " + std::to_string(a) + " is out of range 0.." + std::to_string(last));
    if (static_cast<int>(i) >= use) continue;  // validated, not applied
    (type == 1 ? out.board.excluded_sum : out.board.excluded_difference).push_back(static_cast<Index>(a));
  }
  return out;
}

ParamInstance read_param(const std::filesystem::path& file, std::optional<int> diags) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(file.string() + ": cannot open: is a directory");
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return parse_param(text.str(), file.string(), diags);
}

std::vector<DiagonalPair> random_excluded_diagonals(Index n, int mininfile, Rng& rng) {
  const Index lines = 2 * n - 1;
  std::vector<Index> sums(static_cast<std::size_t>(lines)), differences(static_cast<std::size_t>(lines));
  for (Index i = 0; i < lines; ++i) sums[static_cast<std::size_t>(i)] = differences[static_cast<std::size_t>(i)] = i;
  shuffle(sums.begin(), sums.end(), rng);
  shuffle(differences.begin(), differences.end(), rng);
  std::vector<int> in_row(static_cast<std::size_t>(n), n), in_column(static_cast<std::size_t>(n), n);
  std::vector<DiagonalPair> out;
  while (!sums.empty() || !differences.empty()) {
    const bool sum = differences.empty() || (!sums.empty() && rng.below(2) == 1);
    auto& pool = sum ? sums : differences;
    const Index d = pool.back();
    pool.pop_back();
    // Cells (r, c) of the diagonal; c = d - r (sum) or c = r - d + n - 1 (difference).
    bool allowed = true;
    for (Index r = 0; r < n && allowed; ++r) {
      const Index c = sum ? d - r : r - d + n - 1;
      if (c >= 0 && c < n && (in_row[static_cast<std::size_t>(r)] <= mininfile || in_column[static_cast<std::size_t>(c)] <= mininfile))
        allowed = false;
    }
    if (!allowed) continue;
    for (Index r = 0; r < n; ++r) {
      const Index c = sum ? d - r : r - d + n - 1;
      if (c < 0 || c >= n) continue;
      --in_row[static_cast<std::size_t>(r)];
      --in_column[static_cast<std::size_t>(c)];
    }
    out.push_back({d, sum ? 1 : 0});
  }
  return out;
}

Composition excluded_board(Index n, const std::vector<DiagonalPair>& pairs, std::size_t d) {
  Composition board(n);
  for (std::size_t i = 0; i < d && i < pairs.size(); ++i)
    (pairs[i].type == 1 ? board.excluded_sum : board.excluded_difference).push_back(pairs[i].index);
  return board;
}

std::string format_param(Index n, const std::vector<DiagonalPair>& pairs) {
  std::string s = "n =  " + std::to_string(n) + "\nnumdiags =  " + std::to_string(pairs.size()) + "\ndiags =  [";
  for (std::size_t i = 0; i < pairs.size(); ++i)
    s += (i == 0 ? "[" : ", [") + std::to_string(pairs[i].index) + ", " + std::to_string(pairs[i].type) + "]";
  return s + "]\n";
}

bool is_param_file(const std::filesystem::path& file) { return file.extension() == ".param"; }

}  // namespace nqc
