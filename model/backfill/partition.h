#pragma once
// Partitions: the hour, day, ISO week (Monday) or month of a model, in the model's IANA
// timezone, as half-open [start, end) instants. DST-correct: a Europe/Berlin day may be
// 23 or 25 hours long; hour partitions across a change neither vanish nor repeat (the
// repeated 02:00 hour of an autumn change is two partitions, named with their offsets).
//
// Names (the CLI's --from/--to, the review's partition column):
//   hour  2026-03-10T14     day  2026-03-10     week  2026-W11 (or the Monday, 2026-03-09)
//   month 2026-03
// An hour name that is ambiguous in the timezone takes its first occurrence; the second
// is written with its offset, 2026-10-25T02+01:00. parse() also accepts any hour written
// with its offset. An hour (or day) that the clocks skip is no partition, and parsing its
// name is an error. A partition starts at the first instant of its hour, day, week or
// month, so a day whose midnight is skipped starts when the clocks resume.

#include "warehouse/error.h"

#include <QDateTime>
#include <QTimeZone>

#include <string>
#include <utility>
#include <vector>

namespace reprint::backfill {

enum class Grain { Hour, Day, Week, Month };
const char *toString(Grain grain);
// Parses "hour", "day", "week" or "month".
bool parseGrain(const std::string &text, Grain *out);

struct Partition {
    QDateTime start;  // first instant, in the model's timezone
    QDateTime end;    // first instant of the next partition
    std::string name;

    // ISO 8601 with offset (2026-03-10T00:00:00+01:00), the form bound as $1/$2.
    std::string startText() const;
    std::string endText() const;
    bool operator==(const Partition &o) const { return start == o.start && end == o.end; }
    bool operator<(const Partition &o) const { return start < o.start; }
};

class PartitionScheme {
public:
    PartitionScheme(Grain grain, const std::string &timezone);

    Grain grain() const { return m_grain; }
    const QTimeZone &timezone() const { return m_zone; }
    bool isValid() const { return m_zone.isValid(); }

    // The partition that contains `instant`.
    Partition containing(const QDateTime &instant) const;
    // Parses a partition name. The error (kind Usage) names the value and what is wrong
    // with it: a name not of the grain's form gives the expected form ("'2026-3-1' is not
    // a day partition (expected YYYY-MM-DD)"); a date, hour or month that does not exist
    // says why ("'2026-02-30' does not exist: February 2026 has 28 days"), with a hint of
    // what to write instead; a partition outside earliest()..latest() names the limit.
    warehouse::Result<Partition> parse(const std::string &name) const;
    // The first and last partitions that parse() accepts. A window's bounds are bound as
    // ISO 8601 text, and so are those of the partitions just outside it (the boundary
    // checks read them): each must be an instant from 0001-01-01T00:00:00 to
    // 9999-12-31T23:59:59 both in UTC and in the timezone, which is what Qt writes and
    // PostgreSQL's date and timestamptz read back. In UTC these are 0001-01-02 and
    // 9999-12-29 (day), 0001-02 and 9999-10 (month).
    Partition earliest() const;
    Partition latest() const;
    Partition next(const Partition &p) const;
    Partition previous(const Partition &p) const;
    // Every partition from `from` to `to`, both inclusive, in order. Empty if to < from.
    std::vector<Partition> range(const Partition &from, const Partition &to) const;

private:
    std::string nameOf(const QDateTime &start) const;
    // The first instant of the partition that contains `instant` and of the one after it,
    // in seconds since the epoch.
    std::pair<qint64, qint64> boundsContaining(qint64 instant) const;
    Grain m_grain;
    QTimeZone m_zone;
};

} // namespace reprint::backfill
