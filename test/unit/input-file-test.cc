/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/input-file.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A private temporary file path, removed at the end of the test.
std::string
TempPath(const std::string& suffix)
{
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return (std::filesystem::temp_directory_path() /
            ("presto-input-" + std::string(info->name()) + "-" + std::to_string(getpid()) + suffix))
        .string();
}

void
Write(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

} // namespace

TEST(InputFile, ExcerptIsShortAndPrintable)
{
    EXPECT_EQ(InputExcerpt("0 1 3"), "0 1 3");
    EXPECT_EQ(InputExcerpt(std::string("a\tb\x01\xff", 5)), "a\\x09b\\x01\\xff");
    const std::string longText(200, 'y');
    const std::string e = InputExcerpt(longText);
    EXPECT_EQ(e, std::string(80, 'y') + "... (200 characters)");
    EXPECT_EQ(InputExcerpt("abcdef", 3), "abc... (6 characters)");
}

TEST(InputFile, Utf8Validation)
{
    EXPECT_TRUE(IsValidUtf8(""));
    EXPECT_TRUE(IsValidUtf8("presto-K1"));
    EXPECT_TRUE(IsValidUtf8("d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x98\x80")); // é à € 😀
    EXPECT_FALSE(IsValidUtf8("\xff"));
    EXPECT_FALSE(IsValidUtf8("caf\xe9"));           // Latin-1 é
    EXPECT_FALSE(IsValidUtf8("\xc3"));              // cut short
    EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
    EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));      // overlong, 3 bytes
    EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // a UTF-16 surrogate
    EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
    EXPECT_FALSE(IsValidUtf8("\x80 continuation")); // continuation byte first
}

TEST(InputFile, LinesAreBounded)
{
    std::istringstream in("short\n" + std::string(10, 'x') + "\nlast");
    std::string line;
    EXPECT_EQ(ReadInputLine(in, line, 8), InputLineStatus::LINE);
    EXPECT_EQ(line, "short");
    EXPECT_EQ(ReadInputLine(in, line, 8), InputLineStatus::TOO_LONG);
    EXPECT_EQ(line, std::string(8, 'x')); // the rest was skipped, not stored
    EXPECT_EQ(ReadInputLine(in, line, 8), InputLineStatus::LINE);
    EXPECT_EQ(line, "last"); // a last line without '\n'
    EXPECT_EQ(ReadInputLine(in, line, 8), InputLineStatus::END);

    std::istringstream empty("\n\n");
    EXPECT_EQ(ReadInputLine(empty, line), InputLineStatus::LINE);
    EXPECT_EQ(line, "");
    EXPECT_EQ(ReadInputLine(empty, line), InputLineStatus::LINE);
    EXPECT_EQ(ReadInputLine(empty, line), InputLineStatus::END);
}

TEST(InputFile, LineReaderCountsLinesAndKeepsThemAsTheyAre)
{
    // a '\r' before '\n' is kept (the parsers quote it as \x0d), a blank line is a line,
    // and a last line without '\n' counts
    std::istringstream in("first\r\n\n  # note\nlast");
    InputLineReader lines(in, "f.txt");
    std::string line;
    EXPECT_EQ(lines.LineNumber(), 0U);
    ASSERT_TRUE(lines.Next(line));
    EXPECT_EQ(line, "first\r");
    EXPECT_EQ(lines.LineNumber(), 1U);
    ASSERT_TRUE(lines.Next(line));
    EXPECT_EQ(line, "");
    EXPECT_EQ(lines.LineNumber(), 2U);
    ASSERT_TRUE(lines.Next(line));
    EXPECT_EQ(line, "  # note"); // comments are the parsers' business
    ASSERT_TRUE(lines.Next(line));
    EXPECT_EQ(line, "last");
    EXPECT_EQ(lines.LineNumber(), 4U);
    EXPECT_FALSE(lines.Next(line));
    EXPECT_EQ(line, "");
    EXPECT_EQ(lines.LineNumber(), 4U); // still the last line, for messages after the loop
    EXPECT_FALSE(lines.Next(line));
}

TEST(InputFile, LineReaderOnAnEmptyStream)
{
    std::istringstream in("");
    InputLineReader lines(in, "<string>");
    std::string line = "stale";
    EXPECT_FALSE(lines.Next(line));
    EXPECT_EQ(line, "");
    EXPECT_EQ(lines.LineNumber(), 0U);
}

TEST(InputFile, LineReaderRefusesAnOverLongLine)
{
    // the limit itself is accepted; one character more names origin, line, limit and start
    std::istringstream in("ok\n" + std::string(8, 'a') + "\n" + std::string(9, 'b') + "\r\n");
    InputLineReader lines(in, "dir/f.cdf", 8);
    std::string line;
    ASSERT_TRUE(lines.Next(line));
    ASSERT_TRUE(lines.Next(line));
    EXPECT_EQ(line, std::string(8, 'a'));
    EXPECT_EQ(ErrorOf([&] { lines.Next(line); }),
              "dir/f.cdf:3: line longer than 8 characters, starting 'bbbbbbbb'");
    EXPECT_EQ(lines.LineNumber(), 3U);

    // the default limit is INPUT_LINE_MAX; the excerpt is short and printable
    std::istringstream big(std::string(INPUT_LINE_MAX + 1, '\x01') + "\n");
    InputLineReader bigLines(big, "<string>");
    const std::string msg = ErrorOf([&] { bigLines.Next(line); });
    EXPECT_EQ(msg.rfind("<string>:1: line longer than 4096 characters, starting '\\x01\\x01", 0),
              0U)
        << msg.substr(0, 200);
    EXPECT_NE(msg.find("... (4096 characters)'"), std::string::npos) << msg.substr(0, 200);
    EXPECT_LT(msg.size(), 450U);
}

TEST(InputFile, RegularFileReadOncePerScope)
{
    const std::string path = TempPath(".txt");
    Write(path, "first\n");
    {
        InputFileScope scope;
        EXPECT_EQ(*ReadInputText(path, "test file"), "first\n");
        Write(path, "second\n");
        // in the scope the path gives the text read first
        EXPECT_EQ(*ReadInputText(path, "test file"), "first\n");
    }
    // outside a scope a regular file is read again
    EXPECT_EQ(*ReadInputText(path, "test file"), "second\n");
    Write(path, "third\n");
    EXPECT_EQ(*ReadInputText(path, "test file"), "third\n");
    std::filesystem::remove(path);
}

TEST(InputFile, LimitsAndErrorsNameTheFile)
{
    const std::string path = TempPath(".txt");
    Write(path, std::string(100, 'z'));
    EXPECT_TRUE(Contains(ErrorOf([&] { ReadInputText(path, "rules file", 99); }),
                         {"rules file '", path.c_str(), "has 100 bytes, more than the 99 bytes"}));
    EXPECT_EQ(ReadInputText(path, "rules file", 100)->size(), 100U);
    std::filesystem::remove(path);
    EXPECT_EQ(TryReadInputText(path, "rules file"), nullptr);
    EXPECT_TRUE(Contains(ErrorOf([&] { ReadInputText(path, "rules file"); }),
                         {"cannot open rules file '", path.c_str(), "No such file"}));
    const std::string dir = std::filesystem::temp_directory_path().string();
    EXPECT_TRUE(Contains(ErrorOf([&] { ReadInputText(dir, "CDF file"); }), {"is a directory"}));
}

TEST(InputFile, StreamOverTheText)
{
    auto text = std::make_shared<const std::string>("1 2\n3 4\n");
    InputTextStream in(text);
    int a = 0;
    int b = 0;
    int c = 0;
    int d = 0;
    in >> a >> b >> c >> d;
    EXPECT_EQ(a + b + c + d, 10);
    EXPECT_FALSE(in.fail());
}
