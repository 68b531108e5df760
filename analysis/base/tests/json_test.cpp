// The project's JSON conventions (mpimon/json.hpp): expected texts written from RFC 8259 and the
// layout the documented formats show, not from the library's output.

#include "mpimon/json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.hpp"

namespace mpimon {
namespace {

using test::error_of;

TEST(Json, StringsAreEscapedAndBrokenUtf8Replaced) {
  EXPECT_EQ(json_line("a\"b\\c\n\t\x01"), R"("a\"b\\c\n\t\u0001")");
  EXPECT_EQ(json_line("caf\xc3\xa9"), "\"caf\xc3\xa9\"");              // UTF-8 kept as is
  EXPECT_EQ(json_line("bad \xff byte"), "\"bad \xef\xbf\xbd byte\"");  // U+FFFD, not an exception
}

TEST(Json, NumbersExactOrNull) {
  EXPECT_EQ(json_line(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(json_line(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_line(0.1), "0.1");  // the shortest text that reads back as the same double
  EXPECT_EQ(json_line(1e-9), "1e-09");
  __extension__ const unsigned __int128 two_to_64 = static_cast<unsigned __int128>(1) << 64;
  EXPECT_EQ(json_line(json_integer(two_to_64 - 1)), "18446744073709551615");
  EXPECT_EQ(json_line(json_integer(two_to_64)), "1.8446744073709552e+19");  // Python: float(2**64)
  EXPECT_EQ(json_line(json_optional(std::optional<double>())), "null");
  EXPECT_EQ(json_line(json_optional(std::optional<int>(3))), "3");
}

TEST(Json, DocumentLayoutHasOneRowPerLine) {
  const Json doc = {{"format", "x"},
                    {"empty", Json::array()},
                    {"sizes", {1, 2}},
                    {"provenance", {{"host", "vm"}, {"np", "2"}}},
                    {"rows", {{{"op", "send"}, {"size", 8}, {"grid", {2, 2}}}, {{"op", "get"}, {"size", 0}}}}};
  EXPECT_EQ(json_document(doc), R"({
  "format": "x",
  "empty": [],
  "sizes": [1, 2],
  "provenance": {
    "host": "vm",
    "np": "2"
  },
  "rows": [
    {"op": "send", "size": 8, "grid": [2, 2]},
    {"op": "get", "size": 0}
  ]
}
)");
  EXPECT_EQ(Json::parse(json_document(doc)), doc);
  EXPECT_EQ(json_line(doc["rows"][0]), R"({"op":"send","size":8,"grid":[2,2]})");
}

TEST(Json, ParseErrorsNameTheFileAndLine) {
  EXPECT_EQ(error_of([] { parse_json("{\n  \"a\": 1,\n  \"b\": [", "f.json"); }).rfind("f.json:3: not JSON: ", 0), 0u);
  // One line: no line number.
  EXPECT_EQ(error_of([] { parse_json("{oops", "launch 2"); }).rfind("launch 2: not JSON: syntax error", 0), 0u);
  EXPECT_EQ(error_of([] { parse_json("{\"x\": 1e999}", "f"); }), "f: not JSON: number overflow parsing '1e999'");
  EXPECT_EQ(parse_json("{\"a\": [1]}", "f")["a"][0], 1);
}

TEST(Json, ValuesOfTheWrongTypeOrRangeAreErrorsNamingTheKey) {
  const Json row = Json::parse(R"({"op": "send", "np": 4294967296, "size": -1, "ok": true, "x": 0.5, "n": 3})");
  EXPECT_EQ(json_value<std::string>(row, "op", "f"), "send");
  EXPECT_EQ(json_value<bool>(row, "ok", "f"), true);
  EXPECT_EQ(json_value<double>(row, "n", "f"), 3.0);  // an integer is a number
  EXPECT_EQ(json_value<std::uint64_t>(row, "np", "f"), 4294967296u);
  EXPECT_EQ(json_value<int>(row, "size", "f"), -1);
  EXPECT_EQ(error_of([&] { json_value<std::uint32_t>(row, "np", "f: cell 1"); }),
            "f: cell 1: 'np' is not a whole number in range");
  EXPECT_EQ(error_of([&] { json_value<std::uint64_t>(row, "size", "f"); }), "f: 'size' is not a whole number in range");
  EXPECT_EQ(error_of([&] { json_value<std::uint64_t>(row, "x", "f"); }), "f: 'x' is not a whole number in range");
  EXPECT_EQ(error_of([&] { json_value<std::string>(row, "np", "f"); }), "f: 'np' is not a string");
  EXPECT_EQ(error_of([&] { json_value<double>(row, "op", "f"); }), "f: 'op' is not a finite number");
  EXPECT_EQ(error_of([] { json_value<double>(Json{{"x", HUGE_VAL}}, "x", "f"); }), "f: 'x' is not a finite number");
  EXPECT_EQ(error_of([&] { json_value<bool>(row, "n", "f"); }), "f: 'n' is not true or false");
  EXPECT_EQ(error_of([&] { json_value<std::string>(row, "missing", "f"); }), "f: 'missing' is missing");
  EXPECT_EQ(error_of([&] { json_value<std::string>(Json::array(), "op", "f"); }), "f: 'op' is missing");
}

}  // namespace
}  // namespace mpimon
