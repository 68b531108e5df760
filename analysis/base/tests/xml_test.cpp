// XML escaping (xml.hpp) against the entities of the XML 1.0 specification, written out by hand.

#include "mpimon/base/xml.hpp"

#include <gtest/gtest.h>

namespace mpimon {
namespace {

TEST(XmlEscape, ReservedCharactersBecomeEntities) {
  EXPECT_EQ(xml_escape(R"(a<b & "c">d)"), "a&lt;b &amp; &quot;c&quot;&gt;d");
}

TEST(XmlEscape, OtherTextIsKept) {
  EXPECT_EQ(xml_escape("tleaf 3 4 100 2 10 8 1, 1gbit/s"), "tleaf 3 4 100 2 10 8 1, 1gbit/s");
  EXPECT_EQ(xml_escape(""), "");
  EXPECT_EQ(xml_escape("&amp;"), "&amp;amp;");  // escaped once more, never taken for an entity
}

}  // namespace
}  // namespace mpimon
