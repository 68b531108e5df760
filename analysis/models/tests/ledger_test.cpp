#include <gtest/gtest.h>

#include "mpimon/models/ledger.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::error_of;
using test::histogram_text;
using test::TempDir;

TEST(Ledger, RoundTrip) {
  TempDir dir;
  Ledger l(1, 4);
  l.record(TrafficClass::external, 3, 1024);
  l.record(TrafficClass::external, 1, 0);
  l.write(dir.file("run"));
  Ledger r = Ledger::read(dir.file("run.1.ledger"));
  EXPECT_EQ(r.rank(), 1u);
  EXPECT_EQ(r.nprocs(), 4u);
  ASSERT_EQ(r.entries().size(), 2u);
  EXPECT_EQ(r.entries()[0].peer, 3u);
  EXPECT_EQ(r.entries()[0].bytes, 1024u);
}

TEST(Ledger, RoundTripsCallsAndLocalBlocks) {
  TempDir dir;
  Ledger l(1, 4);
  l.record_call(CollectiveKind::one_to_all, "mpimon_coll", 72);
  l.record_local("mpimon_coll", 24);
  l.write(dir.file("run"));
  Ledger r = Ledger::read(dir.file("run.1.ledger"));
  ASSERT_EQ(r.calls().size(), 1u);
  EXPECT_EQ(r.calls()[0].bytes, 72u);
  ASSERT_EQ(r.locals().size(), 1u);
  EXPECT_EQ(r.locals()[0].communicator, "mpimon_coll");
  EXPECT_EQ(r.locals()[0].bytes, 24u);
  auto bad = dir.write("z.0.ledger", "# mpimon-ledger 1 rank 0 nprocs 2\nLOCAL mpimon_coll\n");
  EXPECT_EQ(error_of([&] { Ledger::read(bad); }), bad + ":2: bad ledger line 'LOCAL mpimon_coll'");
}

TEST(Ledger, RejectsBadLines) {
  TempDir dir;
  auto p = dir.write("x.0.ledger", "# mpimon-ledger 1 rank 0 nprocs 2\nE 5 10\n");
  EXPECT_EQ(error_of([&] { Ledger::read(p); }), p + ":2: bad ledger line 'E 5 10'");
  auto q = dir.write("y.0.ledger", "hello\n");
  EXPECT_EQ(error_of([&] { Ledger::read(q); }),
            q + ":1: not an mpimon ledger (expected '# mpimon-ledger 1 rank R nprocs N')");
}

}  // namespace
}  // namespace mpimon
