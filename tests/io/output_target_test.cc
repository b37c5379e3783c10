// OutputTarget: what a path given for output is. A device, FIFO or socket is streamed to, a
// symbolic link is followed, and only a regular file (or nothing) is replaced: `--output
// /dev/null` as root once replaced the machine's /dev/null with a regular file.
#include "sluice/io/output_target.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/temporary_directory.h"

namespace sluice {
namespace {

TEST(OutputTargetTest, StandardOutputIsAStream) {
  auto target = OutputTarget::Resolve("-").ValueOrDie();
  EXPECT_EQ(target.kind(), OutputTarget::Kind::kStandardOutput);
  EXPECT_EQ(target.OpenStream().ValueOrDie(), STDOUT_FILENO);
}

TEST(OutputTargetTest, AMissingOrRegularFileIsReplaced) {
  testing::TemporaryDirectory directory;
  auto missing = OutputTarget::Resolve(directory.Join("new")).ValueOrDie();
  EXPECT_EQ(missing.kind(), OutputTarget::Kind::kReplaceFile);
  EXPECT_EQ(missing.resolved_path(), directory.Join("new"));
  testing::WriteFileBytes(directory.Join("old"), "x");
  auto regular = OutputTarget::Resolve(directory.Join("old")).ValueOrDie();
  EXPECT_EQ(regular.kind(), OutputTarget::Kind::kReplaceFile);
  EXPECT_TRUE(CheckReplaceable(directory.Join("old")).ok());
}

TEST(OutputTargetTest, ACharacterDeviceIsAStreamAndNeverReplaceable) {
  auto target = OutputTarget::Resolve("/dev/null").ValueOrDie();
  EXPECT_EQ(target.kind(), OutputTarget::Kind::kStream);
  const int fd = target.OpenStream().ValueOrDie();
  EXPECT_EQ(::write(fd, "abc", 3), 3);
  ::close(fd);
  Status refused = CheckReplaceable("/dev/null");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("a character device"), std::string::npos) << refused.ToString();
}

TEST(OutputTargetTest, AFifoIsAStream) {
  testing::TemporaryDirectory directory;
  ASSERT_EQ(::mkfifo(directory.Join("pipe").c_str(), 0600), 0);
  auto target = OutputTarget::Resolve(directory.Join("pipe")).ValueOrDie();
  EXPECT_EQ(target.kind(), OutputTarget::Kind::kStream);
  EXPECT_NE(CheckReplaceable(directory.Join("pipe")).message().find("a FIFO"), std::string::npos);
}

TEST(OutputTargetTest, ADirectoryIsRefusedByName) {
  testing::TemporaryDirectory directory;
  auto target = OutputTarget::Resolve(directory.path());
  ASSERT_FALSE(target.ok());
  EXPECT_NE(target.status().message().find("is a directory"), std::string::npos);
  EXPECT_NE(target.status().message().find(directory.path()), std::string::npos);
}

TEST(OutputTargetTest, LinksAreFollowedToTheirTargetRelativeToTheLink) {
  testing::TemporaryDirectory directory;
  ASSERT_EQ(::mkdir(directory.Join("sub").c_str(), 0700), 0);
  testing::WriteFileBytes(directory.Join("sub/real"), "x");
  ASSERT_EQ(::symlink("real", directory.Join("sub/first").c_str()), 0);
  ASSERT_EQ(::symlink("sub/first", directory.Join("second").c_str()), 0);
  auto target = OutputTarget::Resolve(directory.Join("second")).ValueOrDie();
  EXPECT_EQ(target.kind(), OutputTarget::Kind::kReplaceFile);
  EXPECT_EQ(target.resolved_path(), directory.Join("sub/real"));
  EXPECT_NE(target.Describe().find("->"), std::string::npos);
  // A link to /dev/null is a stream, not a file to replace.
  ASSERT_EQ(::symlink("/dev/null", directory.Join("null").c_str()), 0);
  EXPECT_EQ(OutputTarget::Resolve(directory.Join("null")).ValueOrDie().kind(),
            OutputTarget::Kind::kStream);
  // A dangling link resolves to the file it names.
  ASSERT_EQ(::symlink("sub/later", directory.Join("dangling").c_str()), 0);
  EXPECT_EQ(FollowSymbolicLinks(directory.Join("dangling")).ValueOrDie(),
            directory.Join("sub/later"));
}

TEST(OutputTargetTest, ALinkLoopIsAnError) {
  testing::TemporaryDirectory directory;
  ASSERT_EQ(::symlink("b", directory.Join("a").c_str()), 0);
  ASSERT_EQ(::symlink("a", directory.Join("b").c_str()), 0);
  auto target = OutputTarget::Resolve(directory.Join("a"));
  ASSERT_FALSE(target.ok());
  EXPECT_NE(target.status().message().find("symbolic links"), std::string::npos);
}

}  // namespace
}  // namespace sluice
