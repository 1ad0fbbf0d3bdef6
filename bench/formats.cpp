// Reading a composition file alone, without the verifier: the parse (text) or copy (binary,
// HDF5) that `nqc verify` does first. Prints the best of R repetitions, and a pass that only
// touches every byte of the file (the floor) for comparison.
// Usage: nqc_bench_formats FILE [REPEATS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "formats/composition_file.hpp"
#include "system/errors.hpp"
#include "formats/input_file.hpp"

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s FILE [REPEATS]\n", argv[0]);
    return 1;
  }
  const std::string file = argv[1];
  const int repeats = argc == 3 ? std::atoi(argv[2]) : 3;
  try {
    double best_read = 1e300;
    double best_touch = 1e300;
    nqc::Index n = 0;
    const char* format = "";
    for (int r = 0; r < repeats; ++r) {
      double t0 = now_s();
      {
        const auto in = nqc::InputFile::open(file);
        unsigned sum = 0;
        const std::string_view bytes = in->bytes();
        for (std::size_t i = 0; i < bytes.size(); i += 64) sum += static_cast<unsigned char>(bytes[i]);
        static volatile unsigned sink = 0;
        sink = sink + sum;
      }
      best_touch = std::min(best_touch, now_s() - t0);
      t0 = now_s();
      const nqc::LoadedComposition loaded = nqc::read_composition(file);
      best_read = std::min(best_read, now_s() - t0);
      n = loaded.composition.n();
      format = nqc::to_string(loaded.format);
    }
    std::printf("file: %s\nformat: %s\nn: %d\nread_s: %.6f\ntouch_s: %.6f\n", file.c_str(), format, n, best_read,
                best_touch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nqc_bench_formats: %s\n", e.what());
    return 1;
  }
  return 0;
}
