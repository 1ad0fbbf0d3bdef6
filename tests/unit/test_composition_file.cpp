#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "core/construction.hpp"
#include "fifo_writer.hpp"
#include "formats/composition_file.hpp"
#include "system/errors.hpp"
#include "formats/hdf5.hpp"
#include "formats/input_file.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class CompositionFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("nqc-formats-" + std::string(info->name()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The message of read_composition(file) (and require_consistent), "" when it succeeds.
  static std::string error_of(const std::string& file) {
    try {
      require_consistent(read_composition(file));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

std::string slurp(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void spit(const std::string& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

// A binary file's bytes from its fields.
std::string binary(std::uint32_t version, std::uint32_t flags, std::uint64_t n,
                   const std::vector<std::uint32_t>& values, std::string magic = std::string("\x89NQC\r\n\x1a\n", 8)) {
  std::string out = magic;
  const auto put = [&out](auto v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  };  // the host is little-endian
  put(version);
  put(flags);
  put(n);
  for (const std::uint32_t v : values) put(v);
  return out;
}

// The compositions every round trip covers: n = 1, empty rows, a full solution, n = 10^6.
std::vector<Composition> samples() {
  std::vector<Composition> out{Composition(std::vector<Index>{1}), Composition(std::vector<Index>{0}),
                               Composition({0, 0, 5, 0, 4, 0, 0, 3, 0, 0}), *construct_solution(1000)};
  Composition big = *construct_solution(1000000);
  for (std::size_t i = 0; i < big.q.size(); i += 3) big.q[i] = 0;
  out.push_back(std::move(big));
  return out;
}

TEST_F(CompositionFileTest, RoundTripsThroughEveryFormat) {
  const std::pair<const char*, CompositionFormat> formats[] = {
      {"c.txt", CompositionFormat::text}, {"c.bin", CompositionFormat::binary}, {"c.h5", CompositionFormat::hdf5}};
  for (const Composition& c : samples()) {
    for (const auto& [name, format] : formats) {
      write_composition(c, path(name));
      const LoadedComposition back = read_composition(path(name));
      EXPECT_EQ(back.format, format) << name << ", n = " << c.n();
      EXPECT_EQ(back.composition, c) << name << ", n = " << c.n();
      EXPECT_EQ(back.source, path(name));
    }
    // text -> binary -> HDF5 -> text gives the same bytes.
    write_composition(read_composition(path("c.txt")).composition, path("d.bin"));
    write_composition(read_composition(path("d.bin")).composition, path("d.h5"));
    write_composition(read_composition(path("d.h5")).composition, path("d.txt"));
    EXPECT_EQ(slurp(path("d.txt")), slurp(path("c.txt"))) << "n = " << c.n();
  }
}

TEST_F(CompositionFileTest, BinaryLayoutIsTheSpecified) {
  write_composition(Composition({0, 3, 1}), path("c.bin"));
  EXPECT_EQ(slurp(path("c.bin")), binary(1, 0, 3, {0, 3, 1}));
  EXPECT_EQ(fs::file_size(path("c.bin")), 24U + 4 * 3);
}

TEST_F(CompositionFileTest, FormatIsFoundByContentNotByName) {
  const Composition c({0, 0, 5, 0, 4, 0, 0, 3, 0, 0});
  write_composition(c, path("binary.txt"), CompositionFormat::binary);
  write_composition(c, path("text.bin"), CompositionFormat::text);
  write_composition(c, path("hdf5.txt"), CompositionFormat::hdf5);
  write_composition(c, path("text.h5"), CompositionFormat::text);
  EXPECT_EQ(read_composition(path("binary.txt")).format, CompositionFormat::binary);
  EXPECT_EQ(read_composition(path("text.bin")).format, CompositionFormat::text);
  EXPECT_EQ(read_composition(path("hdf5.txt")).format, CompositionFormat::hdf5);
  EXPECT_EQ(read_composition(path("text.h5")).format, CompositionFormat::text);
  for (const char* name : {"binary.txt", "text.bin", "hdf5.txt", "text.h5"})
    EXPECT_EQ(read_composition(path(name)).composition, c) << name;
  EXPECT_EQ(detect_format(std::string("\x89NQC", 4)), CompositionFormat::binary);
  EXPECT_EQ(detect_format(std::string(512, ' ') + std::string("\x89HDF\r\n\x1a\n", 8)),
            CompositionFormat::hdf5);  // a user block
  EXPECT_EQ(detect_format("1 2 3"), CompositionFormat::text);
  EXPECT_EQ(format_for_output("a.bin"), CompositionFormat::binary);
  EXPECT_EQ(format_for_output("a.BIN"), CompositionFormat::binary);
  EXPECT_EQ(format_for_output("a.h5"), CompositionFormat::hdf5);
  EXPECT_EQ(format_for_output("dir.x/a.hdf5"), CompositionFormat::hdf5);
  EXPECT_EQ(format_for_output("a.txt"), CompositionFormat::text);
  EXPECT_EQ(format_for_output("a"), CompositionFormat::text);
  EXPECT_EQ(format_for_output("-"), CompositionFormat::text);
}

TEST_F(CompositionFileTest, BadBinaryFilesGiveOneLine) {
  const std::string f = path("bad.bin");
  const auto error = [&](const std::string& bytes) {
    spit(f, bytes);
    return error_of(f);
  };
  const std::string full = binary(1, 0, 10, {2, 4, 6, 8, 10, 1, 3, 5, 7, 9});
  EXPECT_EQ(error(full), "");
  EXPECT_EQ(error(full.substr(0, full.size() - 4)),
            f + ": truncated: header says n = 10 (24 + 4n = 64 bytes), the file has 60 bytes");
  EXPECT_EQ(error(full + "x"), f + ": trailing data: header says n = 10 (24 + 4n = 64 bytes), the file has 65 bytes");
  EXPECT_EQ(error(full.substr(0, 20)), f + ": truncated: the binary header has 24 bytes, the file has 20 bytes");
  EXPECT_EQ(error(full.substr(0, 4)), f + ": truncated: the binary header has 24 bytes, the file has 4 bytes");
  EXPECT_EQ(error(binary(1, 0, 1, {1}, std::string("\x89NQC\n\x1a\n\0", 8))),
            f + ": not an nqc binary composition: bad magic");
  EXPECT_EQ(error(binary(2, 0, 1, {1})), f + ": unsupported nqc binary version 2 (this nqc reads version 1)");
  EXPECT_EQ(error(binary(1, 5, 1, {1})), f + ": unsupported nqc binary flags 0x00000005 (this nqc reads flags 0)");
  EXPECT_EQ(error(binary(1, 0, 0, {})), f + ": header n = 0 is out of range 1..2147483647");
  EXPECT_EQ(error(binary(1, 0, 2147483648ULL, {1})), f + ": header n = 2147483648 is out of range 1..2147483647");
  EXPECT_EQ(error(binary(1, 0, 4, {0, 3, 5, 0})), f + ": row 3: value 5 is out of range 0..4");
  EXPECT_EQ(error(binary(1, 0, 4, {0, 0, 0, 4294967295U})), f + ": row 4: value 4294967295 is out of range 0..4");
  EXPECT_EQ(error(binary(1, 0, 6, {2, 0, 0, 2, 0, 0})),
            f + ": rows 1 and 4: two queens on one column (column 2)");  // no lines
  // A value out of range far into a large file (past the first copy step).
  std::vector<std::uint32_t> many(200000, 0);
  many[150001] = 200001;
  EXPECT_EQ(error(binary(1, 0, many.size(), many)), f + ": row 150002: value 200001 is out of range 0..200000");
  // A wrong magic without the "\x89NQC" start is not taken for binary: the text parser says what it sees.
  EXPECT_EQ(error(binary(1, 0, 1, {1}, "NQC\r\n\x1a\n\n")), f + ":1: row 1: expected an integer 0..n, got 'NQC'");
}

// HDF5 files written through the C API, for the cases nqc's writer never produces.
class Hdf5Writer {
 public:
  explicit Hdf5Writer(const std::string& file) : file_(h5::create_file(file)) {}
  // A dataset `name` of shape `dims` and file type `type`, filled from `data` (of `mem`).
  void dataset(const std::string& name, std::vector<hsize_t> dims, hid_t type, hid_t mem, const void* data) {
    const h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    const h5::Handle set(H5Dcreate2(file_.id(), name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose);
    if (data != nullptr) {
      ASSERT_GE(H5Dwrite(set.id(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
    }
  }
  void close() { file_.close(); }

 private:
  h5::Handle file_;
};

TEST_F(CompositionFileTest, Hdf5AcceptsAnyIntegerDataset) {
  const std::vector<std::int64_t> values{0, 0, 5, 0, 4, 0, 0, 3, 0, 0};
  for (const hid_t type : {H5T_STD_I64LE, H5T_STD_U8LE, H5T_STD_I16BE, H5T_STD_U64BE}) {
    Hdf5Writer w(path("c.h5"));
    w.dataset("composition", {values.size()}, type, H5T_NATIVE_INT64, values.data());
    w.close();
    EXPECT_EQ(read_composition(path("c.h5")).composition, Composition({0, 0, 5, 0, 4, 0, 0, 3, 0, 0}));
  }
}

TEST_F(CompositionFileTest, BadHdf5FilesGiveOneLine) {
  const std::string f = path("bad.h5");
  const std::vector<std::int64_t> values{0, 2, 0, 0};
  {
    Hdf5Writer w(f);
    w.dataset("other", {4}, H5T_STD_I32LE, H5T_NATIVE_INT64, values.data());
    w.close();
  }
  EXPECT_EQ(
      error_of(f),
      f + ": no dataset /composition (an nqc HDF5 composition holds Q(1..n) in the 1-D integer dataset /composition)");
  {
    Hdf5Writer w(f);
    w.dataset("composition", {2, 2}, H5T_STD_I32LE, H5T_NATIVE_INT64, values.data());
    w.close();
  }
  EXPECT_EQ(error_of(f), f + ": /composition has rank 2, expected rank 1 (the values Q(1..n))");
  {
    const std::vector<double> reals{0, 2, 0, 0};
    Hdf5Writer w(f);
    w.dataset("composition", {4}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, reals.data());
    w.close();
  }
  EXPECT_EQ(error_of(f), f + ": /composition holds floating-point values, expected integers");
  {
    Hdf5Writer w(f);
    w.dataset("composition", {0}, H5T_STD_I32LE, H5T_NATIVE_INT64, nullptr);
    w.close();
  }
  EXPECT_EQ(error_of(f), f + ": /composition is empty (n must be at least 1)");
  for (const auto& [bad, shown] : std::vector<std::pair<std::int64_t, std::string>>{{5, "5"}, {-1, "-1"}}) {
    std::vector<std::int64_t> v = values;
    v[2] = bad;
    Hdf5Writer w(f);
    w.dataset("composition", {4}, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data());
    w.close();
    EXPECT_EQ(error_of(f), f + ": row 3: value " + shown + " is out of range 0..4");
  }
  {
    const std::vector<std::uint64_t> huge{0, 18446744073709551615ULL, 0};
    Hdf5Writer w(f);
    w.dataset("composition", {3}, H5T_STD_U64LE, H5T_NATIVE_UINT64, huge.data());
    w.close();
  }
  EXPECT_EQ(error_of(f), f + ": row 2: value 18446744073709551615 is out of range 0..3");
  write_composition(Composition({2, 0, 0, 2}), f);
  EXPECT_EQ(error_of(f), f + ": rows 1 and 4: two queens on one column (column 2)");
}

TEST_F(CompositionFileTest, DamagedHdf5IsRefused) {
  const std::string f = path("c.h5");
  write_composition(*construct_solution(1000), f);
  const std::string good = slurp(f);
  // A truncated file.
  spit(f, good.substr(0, good.size() / 2));
  std::string e = error_of(f);
  EXPECT_EQ(e.rfind(f + ": unreadable HDF5 composition: ", 0), 0U) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  // A flipped byte in the values (found by their bytes): the Fletcher32 checksum finds it.
  const Composition c = *construct_solution(1000);
  const std::vector<std::uint32_t> head(c.q.begin(), c.q.begin() + 16);
  std::string flipped = good;
  const auto at = flipped.find(std::string(reinterpret_cast<const char*>(head.data()), 64));
  ASSERT_NE(at, std::string::npos);
  flipped[at + 100] = static_cast<char>(flipped[at + 100] ^ 0x40);
  spit(f, flipped);
  e = error_of(f);
  EXPECT_EQ(e.rfind(f + ": unreadable HDF5 composition: ", 0), 0U) << e;
  EXPECT_NE(e.find("checksum"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

// HDF5's original format (superblock 0, the library's and h5py's default) has no checksums:
// refused before HDF5 reads it, with the way to rewrite it.
TEST_F(CompositionFileTest, Hdf5InTheOriginalFormatIsRefused) {
  const std::string f = path("old.h5");
  {
    const h5::Handle file(H5Fcreate(f.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const std::vector<std::int32_t> values{2, 4, 1, 3};
    h5::write_int32s(file, "composition", values);
  }
  EXPECT_EQ(h5::superblock_version(std::string_view(slurp(f))), 0);
  EXPECT_EQ(error_of(f), f + ": HDF5 composition in HDF5's original file format (superblock version 0, no checksums), "
                             "which nqc does not read: rewrite it with 'h5repack -L IN OUT' or write it with "
                             "h5py.File(..., libver='latest')");
}

// Runs read_composition("-") with standard input fed `bytes`: through a pipe (written by a
// thread), or redirected from a file.
LoadedComposition read_stdin(const std::string& bytes, const std::string& file = "") {
  const int saved = ::dup(STDIN_FILENO);
  std::thread writer;
  if (file.empty()) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    ::dup2(fds[0], STDIN_FILENO);
    ::close(fds[0]);
    writer = std::thread([fd = fds[1], &bytes] {
      for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (put <= 0) break;
        done += static_cast<std::size_t>(put);
      }
      ::close(fd);
    });
  } else {
    spit(file, bytes);
    const int fd = ::open(file.c_str(), O_RDONLY);
    ::dup2(fd, STDIN_FILENO);
    ::close(fd);
  }
  const auto restore = [&] {
    if (writer.joinable()) writer.join();
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
  };
  try {
    LoadedComposition l = read_composition("-");
    restore();
    return l;
  } catch (...) {
    restore();
    throw;
  }
}

TEST_F(CompositionFileTest, StandardInputInEveryFormat) {
  const Composition c = *construct_solution(100000);
  for (const char* name : {"c.txt", "c.bin", "c.h5"}) {
    write_composition(c, path(name));
    const std::string bytes = slurp(path(name));
    for (const std::string& file : {std::string(), path("stdin")}) {
      const LoadedComposition l = read_stdin(bytes, file);
      EXPECT_EQ(l.composition, c) << name << (file.empty() ? " (pipe)" : " (file)");
      EXPECT_EQ(l.source, "<stdin>");
    }
  }
  try {
    require_consistent(read_stdin("2\n0\n0\n2\n"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "<stdin>:4: rows 1 and 4: two queens on one column (column 2)");
  }
  try {
    (void)read_stdin(binary(1, 0, 10, {1}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "<stdin>: truncated: header says n = 10 (24 + 4n = 64 bytes), the file has 28 bytes");
  }
}

// --- binary and HDF5 from a stream (a FIFO) ----------------------------------------------------

// What read_composition of a stream of `start`, then `pattern` repeated up to `total` bytes,
// gave: the message ("" when it was read) with the FIFO named "P", the composition, the bytes
// its writer got rid of and the pipe's capacity.
struct StreamRead {
  std::string error;
  Composition composition;
  std::uint64_t written = 0;
  std::uint64_t slack = 0;
};

StreamRead read_stream(const std::string& fifo, const std::string& start, const std::string& pattern = "",
                       std::uint64_t total = 0) {
  testing::FifoWriter writer(fifo, start, pattern, total);
  StreamRead r;
  try {
    r.composition = read_composition(fifo).composition;
  } catch (const InputError& e) {
    r.error = e.what();
    if (r.error.starts_with(fifo)) r.error = "P" + r.error.substr(fifo.size());
  }
  r.written = writer.finish();
  r.slack = writer.pipe_bytes();
  return r;
}

constexpr std::uint64_t kEndless = std::uint64_t{64} << 20;  // far above what a reader may take

// A binary stream is read up to its 24 + 4n bytes and one more: trailing data is found without
// reading on ("at least 24 + 4n + 1 bytes"); the other messages are a file's, in its order.
TEST_F(CompositionFileTest, BinaryFromAStream) {
  const std::string fifo = path("fifo");
  std::vector<std::uint32_t> values(100000);
  for (std::size_t i = 0; i < values.size(); i += 7) values[i] = static_cast<std::uint32_t>(i % 100000 + 1);
  const std::string valid = binary(1, 0, values.size(), values);
  StreamRead r = read_stream(fifo, valid);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.composition.q, std::vector<Index>(values.begin(), values.end()));
  r = read_stream(fifo, binary(1, 0, 10, {}), std::string(1, '\0'), kEndless);
  EXPECT_EQ(r.error, "P: trailing data: header says n = 10 (24 + 4n = 64 bytes), the file has at least 65 bytes");
  EXPECT_LE(r.written, InputFile::kStreamHead + r.slack);
  r = read_stream(fifo, valid, std::string(1, '\0'), kEndless);
  EXPECT_EQ(r.error,
            "P: trailing data: header says n = 100000 (24 + 4n = 400024 bytes), the file has at least 400025 bytes");
  EXPECT_LE(r.written, 400025 + r.slack);
  r = read_stream(fifo, valid.substr(0, 200000));
  EXPECT_EQ(r.error, "P: truncated: header says n = 100000 (24 + 4n = 400024 bytes), the file has 200000 bytes");
  r = read_stream(fifo, binary(1, 0, 2147483647, {}), std::string(1, '\0'), 200000);  // no 8 GiB for a header
  EXPECT_EQ(r.error,
            "P: truncated: header says n = 2147483647 (24 + 4n = 8589934612 bytes), the file has 200000 bytes");
  values[70000] = 100001;
  r = read_stream(fifo, binary(1, 0, values.size(), values));
  EXPECT_EQ(r.error, "P: row 70001: value 100001 is out of range 0..100000");
  r = read_stream(fifo, binary(1, 0, values.size(), values) + "x");  // the size first, as for a file
  EXPECT_EQ(r.error,
            "P: trailing data: header says n = 100000 (24 + 4n = 400024 bytes), the file has at least 400025 bytes");
  r = read_stream(fifo, binary(2, 0, 10, {}), std::string(1, '\0'), kEndless);
  EXPECT_EQ(r.error, "P: unsupported nqc binary version 2 (this nqc reads version 1)");
  EXPECT_LE(r.written, InputFile::kStreamHead + r.slack);
}

// An HDF5 stream is read into memory up to the end its superblock gives, and no further.
TEST_F(CompositionFileTest, Hdf5FromAStream) {
  const std::string fifo = path("fifo");
  const Composition c = *construct_solution(100000);
  write_composition(c, path("c.h5"));
  const std::string file = slurp(path("c.h5"));
  ASSERT_GT(file.size(), InputFile::kStreamHead);
  ASSERT_EQ(h5::file_end(file), file.size());
  StreamRead r = read_stream(fifo, file);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.composition, c);
  r = read_stream(fifo, file, std::string(1, '\0'), kEndless);  // what follows the file is not read
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.composition, c);
  EXPECT_LE(r.written, file.size() + r.slack);
  r = read_stream(fifo, file.substr(0, file.size() - 1000));
  EXPECT_EQ(r.error.rfind("P: unreadable HDF5 composition: truncated file", 0), 0U) << r.error;
  const std::string signature("\x89HDF\r\n\x1a\n", 8);
  r = read_stream(fifo, signature, std::string(1, '\0'), kEndless);
  EXPECT_EQ(r.error, "P: unreadable HDF5 composition: no superblock that gives the file's end");
  EXPECT_LE(r.written, InputFile::kStreamHead + r.slack);
  // A superblock (version 0, 8-byte offsets) whose end-of-file address is 2^40.
  std::string huge = signature + std::string("\0\0\0\0\0\x08\x08\0\x04\0\x10\0\0\0\0\0", 16) + std::string(8, '\0') +
                     std::string(8, '\xff') + std::string("\0\0\0\0\0\x01\0\0", 8);
  r = read_stream(fifo, huge, std::string(1, '\0'), kEndless);
  EXPECT_EQ(r.error,
            "P: the HDF5 superblock gives the file 1099511627776 bytes, more than an HDF5 composition on a stream may "
            "have (17407 MiB)");
  EXPECT_LE(r.written, InputFile::kStreamHead + r.slack);
  EXPECT_EQ(h5::file_end(huge), std::uint64_t{1} << 40);
  EXPECT_EQ(h5::file_end(huge.substr(0, 40)), std::nullopt);           // the address cut off
  EXPECT_EQ(h5::file_end(std::string(512, ' ') + file), file.size());  // after a user block, as the library reads it
}

// A path that names no file (a missing directory) is the user's input (exit 1); the system
// refusing the write (a full disk: /dev/full) is an I/O error (exit 7), in every format.
TEST_F(CompositionFileTest, WritersRefuseWhatTheyCannotWrite) {
  const Composition c(std::vector<Index>{1});
  EXPECT_THROW(write_composition(c, "-", CompositionFormat::hdf5), InputError);
  for (const char* name : {"c.bin", "c.h5", "c.txt"}) {
    try {
      write_composition(c, path(std::string("no/such/dir/") + name));
      ADD_FAILURE() << name << ": written";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find(": No such file or directory") != std::string::npos, true) << e.what();
    }
  }
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const Composition big(std::vector<Index>(1 << 16, 0));  // more than any buffer before the write
  for (const char* name : {"full.bin", "full.h5", "full.txt"}) {
    const auto link = path(name);
    std::filesystem::create_symlink("/dev/full", link);
    try {
      write_composition(big, link);
      ADD_FAILURE() << name << ": written";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << name << ": " << e.what();
      EXPECT_EQ(e.code(), kExitIoError);
    }
  }
}

}  // namespace
}  // namespace nqc
