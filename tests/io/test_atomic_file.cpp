// Replacing a file whole or not at all (common/atomic_file.hpp): run files, reports and the
// data caches are written this way, so a crash or an error never leaves half a file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "support/files.hpp"
#include "support/process.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

TEST_CASE("atomic file: committed whole, or the old file kept and no temporary left", "[cpu][io]") {
  const fs::path dir = testing::make_process_temp_dir("atomic_file");
  const fs::path path = dir / "out.bin";
  write_file_atomically(path, "old contents", false);
  REQUIRE(testing::read_text(path.string()) == "old contents");

  SECTION("written in pieces, then committed") {
    AtomicFileWriter file(path);
    file.write("new ", 4);
    file.write("contents", 8);
    // Until the commit, readers see the old file.
    CHECK(testing::read_text(path.string()) == "old contents");
    CHECK(testing::temporaries_beside(path).size() == 1);
    file.commit(true);
    CHECK(testing::read_text(path.string()) == "new contents");
    CHECK(testing::temporaries_beside(path).empty());
  }
  SECTION("abandoned by an exception half way") {
    try {
      AtomicFileWriter file(path);
      file.write("half of the new", 15);
      throw std::runtime_error("the writer of the contents failed");
    } catch (const std::runtime_error&) {}
    CHECK(testing::read_text(path.string()) == "old contents");
    CHECK(testing::temporaries_beside(path).empty());
  }
  SECTION("a destination that cannot be created names the file") {
    const fs::path missing = dir / "no_such_dir" / "out.bin";
    try {
      write_file_atomically(missing, "x", false);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::StartsWith(missing.string() + ": cannot create the file"));
    }
  }
  SECTION("a rename onto a directory fails, names the file and cleans up") {
    const fs::path occupied = dir / "taken";
    fs::create_directories(occupied / "inside");
    try {
      write_file_atomically(occupied, "x", true);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::StartsWith(occupied.string() + ": cannot replace the file"));
    }
    CHECK(testing::temporaries_beside(occupied).empty());
    CHECK(fs::is_directory(occupied / "inside"));
  }
}
