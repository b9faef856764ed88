// file_tools_test.cpp — read_file, write_file, edit_file and list_directory against the real
// engines (docs/compatibility.md, "File tools": the original's behaviour plus exact round
// trips, modes,
// atomicity, limits and UTF-8 errors).
#include <string>

#include "engine_test.h"

namespace vc::integration {
namespace {

class FileToolsTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    host_ = start_host();
  }
  void TearDown() override {
    if (host_) close_host(host_);
    EngineTest::TearDown();
  }

  Json tool(const std::string& name, const Json& arguments) {
    return host_->call_tool(name, arguments, 180s);
  }
  // The payload of a call that must succeed.
  Json ok(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_FALSE(test::McpClient::is_error(result)) << name << " " << arguments.dump().substr(0, 300)
                                                    << " failed: " << result.dump().substr(0, 600);
    return test::McpClient::payload_of(result);
  }
  // The error message of a call that must fail.
  std::string fails(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_TRUE(test::McpClient::is_error(result)) << result.dump().substr(0, 600);
    const Json payload = test::McpClient::payload_of(result);
    EXPECT_EQ(payload.value("operation", ""), name);
    return payload.value("error", "");
  }
  std::string shell(const std::string& command) {
    return execute(*host_, {{"command", command}}).value("stdout", "");
  }

  std::unique_ptr<test::McpClient> host_;
};

TEST_P(FileToolsTest, TrickyContentRoundTripsExactly) {
  const std::string content =
      "quotes ' \" ` and backslashes \\ \\\\n $(echo no) ${HOME} %s\n"
      "tabs\tand CRLF\r\nUTF-8: héllo, 日本語, emoji 🎉, combining é\n"
      "no trailing newline";
  const Json written = ok("write_file", {{"path", "dir/tricky.txt"}, {"content", content}});
  EXPECT_EQ(written["path"], "/workspace/dir/tricky.txt");
  EXPECT_EQ(written["created_parent_directories"], true);
  const Json read = ok("read_file", {{"path", "/workspace/dir/../dir/tricky.txt"}});
  EXPECT_EQ(read["content"], content);
  EXPECT_EQ(read["size_bytes"], content.size());
  EXPECT_EQ(read["sha256"], written["sha256"]);
  // The hash is the file's, as the computer computes it.
  EXPECT_EQ(shell("sha256sum /workspace/dir/tricky.txt | cut -d' ' -f1"),
            read["sha256"].get<std::string>() + "\n");
}

TEST_P(FileToolsTest, OneMebibyteOfTextRoundTripsAndMoreIsRefused) {
  std::string big;
  while (big.size() < 1048576) big += "line of text with ünïcödé and \"quotes\"\n";
  big.resize(1048576);
  // Cut at a character boundary: drop a partial multi-byte sequence at the end.
  while ((static_cast<unsigned char>(big.back()) & 0xC0) == 0x80 ||
         static_cast<unsigned char>(big.back()) >= 0xC0) {
    big.pop_back();
  }
  const Json written = ok("write_file", {{"path", "big.txt"}, {"content", big}});
  EXPECT_EQ(written["size_bytes"], big.size());
  EXPECT_EQ(ok("read_file", {{"path", "big.txt"}})["content"], big);

  EXPECT_EQ(fails("write_file", {{"path", "bigger.txt"}, {"content", std::string(1048577, 'x')}}),
            "content is 1048577 bytes; text tool limit is 1048576 bytes");
  shell("head -c 2000000 /dev/zero | tr '\\0' a > /workspace/huge.txt");
  EXPECT_EQ(fails("read_file", {{"path", "huge.txt"}}),
            "File is 2000000 bytes; text tool limit is 1048576 bytes");
}

TEST_P(FileToolsTest, ReadErrorsUseTheOriginalsMessages) {
  EXPECT_EQ(fails("read_file", {{"path", "missing.txt"}}), "File does not exist: /workspace/missing.txt");
  EXPECT_EQ(fails("read_file", {{"path", "/tmp"}}), "Path is not a regular file: /tmp");
  shell("printf 'ok\\377bad' > /workspace/binary.bin");
  EXPECT_EQ(fails("read_file", {{"path", "binary.bin"}}),
            "File is not valid UTF-8 text at byte 2: /workspace/binary.bin");
  EXPECT_EQ(fails("read_file", {{"path", "   "}}), "path must not be empty");
  EXPECT_EQ(fails("read_file", {{"path", std::string("a\0b", 3)}}), "path must not contain a NUL byte");
}

TEST_P(FileToolsTest, WriteKeepsTheModeAndNewFilesFollowTheUmask) {
  shell("printf old > /workspace/script.sh && chmod 750 /workspace/script.sh");
  ok("write_file", {{"path", "script.sh"}, {"content", "#!/bin/sh\necho new\n"}});
  EXPECT_EQ(shell("stat -c %a /workspace/script.sh"), "750\n");
  ok("write_file", {{"path", "fresh.txt"}, {"content", "x"}});
  EXPECT_EQ(shell("stat -c %a /workspace/fresh.txt"), "644\n");
  EXPECT_EQ(shell("ls -A /workspace | grep -c mcp-write || true"), "0\n") << "a temporary file was left";

  EXPECT_EQ(fails("write_file", {{"path", "no/such/dir/f.txt"}, {"content", "x"},
                                 {"create_parent_directories", false}}),
            "Parent directory does not exist: /workspace/no/such/dir");
}

// A file the tools write stays its owner's: an existing file keeps its owner, a new file and
// the folders made for it get the owner of the folder they are made in (so a desktop user's
// files stay editable by that user).
TEST_P(FileToolsTest, WriteKeepsTheOwnerAndNewFilesTakeTheirFoldersOwner) {
  shell("mkdir -p /workspace/owned && chown 1234:2345 /workspace/owned && "
        "printf old > /workspace/owned/kept.txt && chown 1234:2345 /workspace/owned/kept.txt");
  ok("write_file", {{"path", "owned/kept.txt"}, {"content", "new"}});
  EXPECT_EQ(shell("stat -c %u:%g /workspace/owned/kept.txt"), "1234:2345\n");
  ok("write_file", {{"path", "owned/fresh.txt"}, {"content", "x"}});
  EXPECT_EQ(shell("stat -c %u:%g /workspace/owned/fresh.txt"), "1234:2345\n");
  ok("write_file", {{"path", "owned/a/b/deep.txt"}, {"content", "x"}});
  EXPECT_EQ(shell("stat -c %u:%g /workspace/owned/a /workspace/owned/a/b "
                  "/workspace/owned/a/b/deep.txt"),
            "1234:2345\n1234:2345\n1234:2345\n");
  // A root-owned file stays root's.
  shell("printf old > /workspace/owned/roots.txt && chown 0:0 /workspace/owned/roots.txt");
  ok("edit_file", {{"path", "owned/roots.txt"}, {"old_text", "old"}, {"new_text", "new"}});
  EXPECT_EQ(shell("stat -c %u:%g /workspace/owned/roots.txt; cat /workspace/owned/roots.txt"),
            "0:0\nnew");
}

TEST_P(FileToolsTest, AConcurrentReaderNeverSeesAHalfWrittenFile) {
  const std::string a(512 * 1024, 'a');
  const std::string b(512 * 1024, 'b');
  ok("write_file", {{"path", "swap.txt"}, {"content", a}});
  // A reader in the background checks every version it sees is all-a or all-b.
  shell("nohup sh -c 'end=$(($(date +%s)+8)); while [ $(date +%s) -lt $end ]; do "
        "c=$(tr -d ab < /workspace/swap.txt | wc -c); if [ \"$c\" = 0 ]; then echo whole; "
        "else echo torn; fi; done > /workspace/reader.log 2>&1' >/dev/null 2>&1 &");
  for (int i = 0; i < 6; ++i) ok("write_file", {{"path", "swap.txt"}, {"content", i % 2 ? a : b}});
  shell("sleep 9");
  EXPECT_NE(shell("grep -c whole /workspace/reader.log || true"), "0\n") << "the reader never ran";
  EXPECT_EQ(shell("grep -c torn /workspace/reader.log || true"), "0\n");
}

TEST_P(FileToolsTest, EditReplacesExactlyOnceOrAllAndRefusesAmbiguity) {
  ok("write_file", {{"path", "edit.txt"}, {"content", "one two two three"}});
  EXPECT_EQ(fails("edit_file", {{"path", "edit.txt"}, {"old_text", "two"}, {"new_text", "2"}}),
            "old_text occurs 2 times in /workspace/edit.txt; provide more surrounding text or set "
            "replace_all=true");
  EXPECT_EQ(fails("edit_file", {{"path", "edit.txt"}, {"old_text", "four"}, {"new_text", "4"}}),
            "old_text was not found in /workspace/edit.txt");
  EXPECT_EQ(fails("edit_file", {{"path", "edit.txt"}, {"old_text", ""}, {"new_text", "4"}}),
            "old_text must not be empty");
  const Json once = ok("edit_file", {{"path", "edit.txt"}, {"old_text", "one"}, {"new_text", "1"}});
  EXPECT_EQ(once["replacements"], 1);
  EXPECT_EQ(once["content"], "1 two two three");
  const Json all = ok("edit_file", {{"path", "edit.txt"}, {"old_text", "two"}, {"new_text", "2"},
                                    {"replace_all", true}});
  EXPECT_EQ(all["replacements"], 2);
  EXPECT_EQ(ok("read_file", {{"path", "edit.txt"}})["content"], "1 2 2 three");
}

TEST_P(FileToolsTest, EditDetectsAFileChangedBetweenReadAndSave) {
  const std::string original = "first line\nMARKER\nlast line\n";
  ok("write_file", {{"path", "race.txt"}, {"content", original}});
  // edit_file reads the file with one exec and saves it with another. To change the file
  // exactly between the two, a one-shot stand-in for base64 (which the read runs; /usr/local/bin
  // comes first on the image's PATH) removes itself, lets the real base64 read the file, and
  // then appends a line. A writer looping in the background would not do: it mostly changes
  // the file during the read itself, which fails differently ("changed while it was being read").
  shell("printf '%s\\n' '#!/bin/sh' 'rm -f /usr/local/bin/base64' '/usr/bin/base64 \"$@\"' "
        "'status=$?' 'echo appended >> /workspace/race.txt' 'exit $status' "
        "> /usr/local/bin/base64 && chmod 755 /usr/local/bin/base64");

  EXPECT_EQ(fails("edit_file", {{"path", "race.txt"}, {"old_text", "MARKER"}, {"new_text", "CHANGED"}}),
            "File changed before edit could be saved: /workspace/race.txt");

  EXPECT_EQ(shell("test -e /usr/local/bin/base64 && echo unused || echo used"), "used\n")
      << "the read did not run base64, so the file never changed in between";
  // The other writer's line is kept and the edit is not applied.
  EXPECT_EQ(ok("read_file", {{"path", "race.txt"}})["content"], original + "appended\n");
  EXPECT_EQ(shell("ls -A /workspace | grep -c mcp-write || true"), "0\n") << "a temporary file was left";
}

TEST_P(FileToolsTest, ListDirectoryShowsDirectoriesFirstThenNamesCaseFolded) {
  shell("mkdir -p /workspace/l/Zeta /workspace/l/alpha && printf 12345 > /workspace/l/b.txt && "
        "printf x > /workspace/l/A.txt && printf h > /workspace/l/.hidden && "
        "ln -s b.txt /workspace/l/link");
  const Json listing = ok("list_directory", {{"path", "l"}});
  EXPECT_EQ(listing["path"], "/workspace/l");
  std::vector<std::string> names;
  for (const auto& entry : listing["entries"]) names.push_back(entry["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "Zeta", ".hidden", "A.txt", "b.txt", "link"}));
  for (const auto& entry : listing["entries"]) {
    if (entry["name"] == "b.txt") {
      EXPECT_EQ(entry["kind"], "file");
      EXPECT_EQ(entry["size_bytes"], 5);
      EXPECT_EQ(entry["path"], "/workspace/l/b.txt");
    }
    if (entry["name"] == "link") {
      EXPECT_EQ(entry["kind"], "other");
    }
    if (entry["name"] == "alpha") {
      EXPECT_EQ(entry["kind"], "directory");
    }
  }
  EXPECT_EQ(fails("list_directory", {{"path", "nowhere"}}), "Directory does not exist: /workspace/nowhere");
  EXPECT_EQ(fails("list_directory", {{"path", "l/b.txt"}}), "Path is not a directory: /workspace/l/b.txt");
  EXPECT_EQ(ok("list_directory", Json::object())["path"], "/workspace");
}

VC_INSTANTIATE_FOR_ENGINES(FileToolsTest);

}  // namespace
}  // namespace vc::integration
