#include "formats/csplib.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "system/errors.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

constexpr const char* kParamWhat = ".param file";

// "key = value" on one line (blanks around both); returns the value, or nullopt when the line
// is another key.
std::optional<std::string_view> value_of(std::string_view line, std::string_view key) {
  const auto eq = line.find('=');
  if (eq == std::string_view::npos || text::trim(line.substr(0, eq)) != key) return std::nullopt;
  return text::trim(line.substr(eq + 1));
}

long long integer(std::string_view text, const std::string& where, const std::string& what) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw InputError(where + ": expected " + what + ", got " + text::quoted(text));
  return v;
}

// The pairs of a diags list (its line `where`) into out.pairs, checked against the board
// out.board.n(); the first out.used of them excluded from out.board.
void read_pairs(const nlohmann::json& list, const std::string& where, ParamInstance& out) {
  const long long last = 2 * static_cast<long long>(out.board.n()) - 2;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& pair = list[i];
    const std::string item = where + ": diags[" + std::to_string(i) + "]";
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer())
      throw InputError(item + ": expected a pair [index, 0 or 1], got " + text::escaped(pair.dump()));
    const long long a = pair[0].get<long long>(), type = pair[1].get<long long>();
    if (type != 0 && type != 1)
      throw InputError(item + ": expected type 0 (difference) or 1 (sum), got " + std::to_string(type));
    if (a < 0 || a > last)
      throw InputError(item + ": diagonal index " + std::to_string(a) + " is out of range 0.." + std::to_string(last));
    out.pairs.push_back({static_cast<Index>(a), static_cast<int>(type)});
    if (static_cast<int>(i) >= out.used) continue;  // validated, not applied
    (type == 1 ? out.board.excluded_sum : out.board.excluded_difference).push_back(static_cast<Index>(a));
  }
}

}  // namespace

ParamInstance parse_param(const std::string& text, const std::string& source, std::optional<int> diags) {
  std::optional<long long> n, numdiags;
  std::optional<nlohmann::json> list;
  int list_line = 0;
  std::map<std::string, std::int64_t> first_line;  // key -> the line that gave it
  for (const text::Line& line : text::lines(text)) {
    const std::string where = source + ":" + std::to_string(line.number);
    if (text::trim(line.text).empty()) continue;
    for (const char* key : {"n", "numdiags", "diags"})
      if (value_of(line.text, key)) {
        const auto [at, fresh] = first_line.emplace(key, line.number);
        if (!fresh)
          throw InputError(where + ": '" + key + " = ' given twice (first on line " + std::to_string(at->second) +
                           "); give each key once");
      }
    if (auto v = value_of(line.text, "n")) {
      n = integer(*v, where, "n = a board size >= 1");
      if (*n < 1 || *n > kMaxBoardSize)
        throw InputError(where + ": expected n = a board size >= 1, got " + text::quoted(*v));
    } else if (auto d = value_of(line.text, "numdiags")) {
      numdiags = integer(*d, where, "numdiags = a count >= 0");
      if (*numdiags < 0) throw InputError(where + ": expected numdiags = a count >= 0, got " + text::quoted(*d));
    } else if (auto l = value_of(line.text, "diags")) {
      try {
        list = nlohmann::json::parse(*l);
      } catch (
          const nlohmann::json::exception&) {  // a syntax error, or a number out of range (tests/fuzz/failed/param)
        throw InputError(where + ": malformed diags list (expected [[index, 0 or 1], ...])");
      }
      list_line = static_cast<int>(line.number);
    } else {
      throw InputError(where + ": expected 'n = ', 'numdiags = ' or 'diags = ', got " + text::quoted(line.text));
    }
  }
  for (const auto& [have, key] :
       {std::pair{n.has_value(), "n"}, {numdiags.has_value(), "numdiags"}, {list.has_value(), "diags"}})
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
  read_pairs(*list, where, out);
  return out;
}

ParamInstance read_param(const std::filesystem::path& file, std::optional<int> diags) {
  return parse_param(text::read_small_file(file, kMaxParamBytes, kParamWhat), file.string(), diags);
}

ParamInstance read_param(const InputFile& in, std::optional<int> diags) {
  const bool stream = in.is_stream();
  in.spool(kMaxParamBytes + 1);
  text::require_at_most(in.name(), in.size(), kMaxParamBytes, kParamWhat, stream && in.size() > kMaxParamBytes);
  return parse_param(std::string(in.bytes()), in.name(), diags);
}

std::vector<DiagonalPair> random_excluded_diagonals(Index n, int mininfile, Rng& rng, std::size_t most) {
  const Index lines = 2 * n - 1;
  std::vector<Index> sums(static_cast<std::size_t>(lines)), differences(static_cast<std::size_t>(lines));
  for (Index i = 0; i < lines; ++i) sums[static_cast<std::size_t>(i)] = differences[static_cast<std::size_t>(i)] = i;
  shuffle(sums.begin(), sums.end(), rng);
  shuffle(differences.begin(), differences.end(), rng);
  std::vector<int> in_row(static_cast<std::size_t>(n), n), in_column(static_cast<std::size_t>(n), n);
  std::vector<DiagonalPair> out;
  while ((!sums.empty() || !differences.empty()) && out.size() < most) {
    const bool sum = differences.empty() || (!sums.empty() && rng.below(2) == 1);
    auto& pool = sum ? sums : differences;
    const Index d = pool.back();
    pool.pop_back();
    // The rows r the diagonal crosses, the same for both directions; its cell in row r is
    // column d - r (sum) or r - d + n - 1 (difference).
    const auto first = static_cast<std::size_t>(std::max<Index>(0, d - n + 1));
    const auto last = static_cast<std::size_t>(std::min<Index>(n - 1, d));
    const auto column = [&](std::size_t r) {
      return static_cast<std::size_t>(sum ? d - static_cast<Index>(r) : static_cast<Index>(r) - d + n - 1);
    };
    bool allowed = true;
    for (std::size_t r = first; r <= last && allowed; ++r)
      allowed = in_row[r] > mininfile && in_column[column(r)] > mininfile;
    if (!allowed) continue;
    for (std::size_t r = first; r <= last; ++r) {
      --in_row[r];
      --in_column[column(r)];
    }
    out.push_back({d, sum ? 1 : 0});
  }
  return out;
}

std::optional<Composition> random_placed_queens(Index n, Index queens, Rng& rng, const std::atomic<bool>* stop) {
  Composition c(n);
  if (queens == 0) return c;
  std::vector<Index> rows(static_cast<std::size_t>(n)), cols(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = cols[static_cast<std::size_t>(i)] = i;
  std::vector<char> sum(2 * static_cast<std::size_t>(n)), difference(2 * static_cast<std::size_t>(n));
  const auto open = [&](Index r, Index col) {
    return sum[static_cast<std::size_t>(r + col)] == 0 && difference[static_cast<std::size_t>(r - col + n - 1)] == 0;
  };
  // True when some free row and free column meet on open diagonals: once none do, the
  // remaining attempts would all fail, so the draw ends early with the same outcome.
  const auto any_open = [&](std::size_t left) {
    for (std::size_t i = 0; i < left; ++i)
      for (std::size_t j = 0; j < left; ++j)
        if (open(rows[i], cols[j])) return true;
    return false;
  };
  auto left = static_cast<std::size_t>(n);
  std::uint64_t failed = 0;  // attempts since the last queen or the last any_open
  const std::uint64_t attempts = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  for (std::uint64_t attempt = 0; attempt < attempts; ++attempt) {
    if ((attempt & 0xffff) == 0xffff && stop != nullptr && stop->load(std::memory_order_relaxed)) return std::nullopt;
    const auto i = static_cast<std::size_t>(rng.below(left)), j = static_cast<std::size_t>(rng.below(left));
    const Index r = rows[i], col = cols[j];
    if (!open(r, col)) {
      // A scan costs left^2, no more than the failed attempts before it.
      if (++failed >= static_cast<std::uint64_t>(left) * left) {
        if (!any_open(left)) return std::nullopt;
        failed = 0;
      }
      continue;
    }
    failed = 0;
    sum[static_cast<std::size_t>(r + col)] = difference[static_cast<std::size_t>(r - col + n - 1)] = 1;
    c.q[static_cast<std::size_t>(r)] = col + 1;
    rows[i] = rows[left - 1];
    cols[j] = cols[left - 1];
    if (n - static_cast<Index>(--left) == queens) return c;
  }
  return std::nullopt;
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

bool looks_like_param(std::string_view text) {
  // The first byte that is not blank or a line end (a huge composition is not split into lines).
  for (std::size_t i = text::first_byte(text); i < text.size(); ++i)
    if (!text::is_blank(text[i]) && text[i] != '\n' && text[i] != '\r')
      return std::isalpha(static_cast<unsigned char>(text[i])) != 0;
  return false;
}

}  // namespace nqc
