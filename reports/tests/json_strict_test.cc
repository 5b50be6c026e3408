// The strict JSON layer (reports/json_strict.h): duplicate keys named with their place, syntax
// errors with line and column, and the same rules for every file type that reads through it.
#include "reports/json_strict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/input_file.h"
#include "reports/json_record.h"

namespace flashscope::reports::jsonio {
namespace {

using ::testing::HasSubstr;

std::string Error(const std::string& text) {
  absl::StatusOr<Json> j = ParseStrict(text, "f.json", "a test file");
  return j.ok() ? std::string("(parsed)") : std::string(j.status().message());
}

TEST(JsonStrict, DuplicateKeyIsNamedWithBothPlaces) {
  EXPECT_EQ(Error("{\"a\": 1,\n \"a\": 2}"),
            "f.json:2:2: duplicate key \"a\" in the top-level object (first at 1:2): a value "
            "given twice is ambiguous, so it is refused; keep one");
}

TEST(JsonStrict, DuplicateKeyDeepInsideArraysNamesTheJsonPath) {
  const std::string text =
      R"({"cases": [{"k": 1}, {"timing": {"median_ms": 1, "x": [1, 2], "median_ms": 9}}]})";
  EXPECT_THAT(Error(text), HasSubstr("duplicate key \"median_ms\" in cases[1].timing"));
  // Scalars and strings before it in the array count as elements too.
  EXPECT_THAT(Error(R"({"l": [1, "s", true, null, {"k": 1, "k": 2}]})"), HasSubstr("in l[4]"));
}

TEST(JsonStrict, EscapedSpellingsOfOneKeyAreTheSameKey) {
  EXPECT_THAT(Error(R"({"ab": 1, "a\u0062": 2})"), HasSubstr("duplicate key \"ab\""));
}

TEST(JsonStrict, EqualKeysInDifferentObjectsAreFine) {
  EXPECT_EQ(Error(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]})"), "(parsed)");
  // Brackets and quotes inside strings are text, not structure.
  EXPECT_EQ(Error(R"({"a": "{\"a\": 1, [", "b": "\\"})"), "(parsed)");
}

TEST(JsonStrict, SyntaxErrorHasLineColumnReasonAndWhatWasExpected) {
  const std::string e = Error("{\n  \"a\": 1,\n  oops\n}");
  EXPECT_THAT(e, HasSubstr("f.json:3:3: not valid JSON: syntax error"));
  EXPECT_THAT(e, HasSubstr("(expected a test file)"));
}

TEST(JsonStrict, NumbersBeyondDoubleAndDeepNestingAreRefused) {
  EXPECT_THAT(Error(R"({"a": 1e999})"), HasSubstr("f.json: not valid JSON: number overflow"));
  EXPECT_THAT(Error(std::string(100, '[') + std::string(100, ']')),
              HasSubstr("nested deeper than 64"));
}

// A record described once: reading and writing come from the same list, with its rules.
struct Sample {
  int count = 0;
  double ratio = 0;
  double floor = 0;
  std::string note;
};
template <class V>
void Describe(V& v, Sample& s) {
  v("count", s.count, AtLeast(0).Required());
  v("ratio", s.ratio, InRange(0, 1));
  v("floor", s.floor, Finite());
  v("note", s.note, OmitEmpty());
}

std::string ReadError(const std::string& text) {
  Sample s;
  absl::Status st;
  ReadRecord(Json::parse(text), "rec", &st, &s);
  return st.ok() ? "(read)" : std::string(st.message());
}

TEST(JsonRecord, RangesFinitenessAndRequiredKeys) {
  EXPECT_EQ(ReadError(R"({"count": 3, "ratio": 0.5, "floor": 2})"), "(read)");
  EXPECT_EQ(ReadError(R"({"count": -1})"), "rec.count: -1 is out of range [0, inf]");
  EXPECT_EQ(ReadError(R"({"count": 1, "ratio": 2})"), "rec.ratio: 2 is out of range [0, 1]");
  EXPECT_THAT(ReadError(R"({"count": 1, "floor": "nan"})"),
              HasSubstr("rec.floor: expected a finite number, got \"nan\""));
  EXPECT_THAT(ReadError(R"({"count": 1, "ratio": "inf"})"), HasSubstr("expected a finite number"));
  EXPECT_EQ(ReadError(R"({"ratio": 0.5})"), "rec: missing required key \"count\"");
}

TEST(JsonRecord, WriterMakesTheSameKeysAndOmitsWhatTheRuleSays) {
  Sample s{2, 0.25, -1, ""};
  EXPECT_EQ(WriteRecord(s).dump(), R"({"count":2,"floor":-1.0,"ratio":0.25})");
  s.note = "n";
  Sample back;
  absl::Status st;
  ReadRecord(WriteRecord(s), "", &st, &back);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(back.count, 2);
  EXPECT_EQ(back.note, "n");
}

}  // namespace
}  // namespace flashscope::reports::jsonio

namespace flashscope::reports::jsonio {
namespace {

// 200 MB of "0," is 100 million values: 2.4 GB once parsed. The tree's size is estimated and
// refused before parsing, under the same cap as the input (4x it).
TEST(JsonStrict, ATreeTooLargeForTheCapIsRefusedBeforeParsing) {
  std::string text = "[";
  for (int i = 0; i < 600000; ++i) text += "0,";
  text += "0]";
  EXPECT_GT(ApproximateTreeBytes(text), uint64_t{600000} * 16);
  SetMaxInputBytes(uint64_t{1} << 20);
  const std::string e = Error(text);
  SetMaxInputBytes(kDefaultMaxInputBytes);
  EXPECT_THAT(e, HasSubstr("f.json: would need about 9 MiB of memory once parsed"));
  EXPECT_EQ(Error(text), "(parsed)");  // under the default cap
}

}  // namespace
}  // namespace flashscope::reports::jsonio
