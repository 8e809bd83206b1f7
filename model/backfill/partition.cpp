#include "partition.h"

#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Result;

// All arithmetic is on seconds since the epoch. An instant `t` has the wall-clock time
// wall(t) = t + offset(t), itself expressed as seconds since 1970-01-01T00:00 on the
// wall clock. Partitions are built from instants only, so QDateTime's handling of local
// times that do not exist (or exist twice) never comes into play.
namespace {

constexpr qint64 kHour = 3600;
constexpr qint64 kDay = 86400;
constexpr qint64 kUnixEpochJulianDay = 2440588;

qint64 floorDiv(qint64 a, qint64 b)
{
    qint64 q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        --q;
    return q;
}

QDate dateOfWall(qint64 wall)
{
    return QDate::fromJulianDay(floorDiv(wall, kDay) + kUnixEpochJulianDay);
}

qint64 wallOfDate(QDate date)
{
    return (date.toJulianDay() - kUnixEpochJulianDay) * kDay;
}

std::string format(const char *pattern, int a, int b = 0, int c = 0, int d = 0)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, pattern, a, b, c, d);
    return buf;
}

// Appends `value` as "%0<width>d" would, without printf's cost: a year of hours names 8760
// partitions.
void appendNumber(std::string &out, int value, int width)
{
    if (value < 0) {
        out += format("%0*d", width, value);
        return;
    }
    char digits[12];
    int n = 0;
    do {
        digits[n++] = char('0' + value % 10);
        value /= 10;
    } while (value > 0);
    out.append(std::size_t(std::max(0, width - n)), '0');
    while (n > 0)
        out += digits[--n];
}

std::string offsetText(int offsetSeconds)
{
    const char sign = offsetSeconds < 0 ? '-' : '+';
    const int abs = offsetSeconds < 0 ? -offsetSeconds : offsetSeconds;
    std::string s = sign + format("%02d:%02d", abs / 3600, (abs / 60) % 60);
    if (abs % 60 != 0)
        s += format(":%02d", abs % 60);
    return s;
}

std::string isoText(const QDateTime &dt)
{
    if (!dt.isValid())
        return {};
    const QDate d = dt.date();
    const QTime t = dt.time();
    return format("%04d-%02d-%02dT", d.year(), d.month(), d.day())
        + format("%02d:%02d:%02d", t.hour(), t.minute(), t.second()) + offsetText(dt.offsetFromUtc());
}

std::string dayName(QDate d)
{
    int year = 0, month = 0, day = 0;
    d.getDate(&year, &month, &day);
    std::string name;
    name.reserve(24);
    appendNumber(name, year, 4);
    name += '-';
    appendNumber(name, month, 2);
    name += '-';
    appendNumber(name, day, 2);
    return name;
}

std::string weekName(QDate monday)
{
    int year = 0;
    const int week = monday.weekNumber(&year);
    return format("%04d-W%02d", year, week);
}

std::string monthName(QDate d)
{
    return format("%04d-%02d", d.year(), d.month());
}

// The offset from UTC holds between two of a zone's transitions. The interval of the last
// lookup is kept per thread, so that a walk over consecutive partitions (a year of hours)
// asks the zone about a transition once, not about every instant (a QTimeZone lookup
// builds a whole OffsetData each time).
struct OffsetInterval {
    QTimeZone zone;  // compared by id, without copying it (QTimeZone::id() allocates)
    qint64 from = 0, to = 0;  // [from, to) in seconds since the epoch
    int offset = 0;
};

int offsetAt(const QTimeZone &zone, qint64 instant)
{
    thread_local OffsetInterval last;
    if (instant >= last.from && instant < last.to && last.zone == zone)
        return last.offset;
    const QDateTime at = QDateTime::fromSecsSinceEpoch(instant, Qt::UTC);
    const int offset = zone.offsetFromUtc(at);
    qint64 from = std::numeric_limits<qint64>::min();
    qint64 to = std::numeric_limits<qint64>::max();
    if (zone.hasTransitions()) {
        const QTimeZone::OffsetData before = zone.previousTransition(at.addSecs(1));  // at or before `at`
        const QTimeZone::OffsetData after = zone.nextTransition(at);
        if (before.atUtc.isValid())
            from = before.atUtc.toSecsSinceEpoch();
        if (after.atUtc.isValid())
            to = after.atUtc.toSecsSinceEpoch();
    }
    // Kept only when the zone's own transitions bracket the instant with the offset it gave.
    if (instant >= from && instant < to && (from == std::numeric_limits<qint64>::min()
                                            || zone.offsetFromUtc(QDateTime::fromSecsSinceEpoch(from, Qt::UTC)) == offset))
        last = {zone, from, to, offset};
    else
        last = {};
    return offset;
}

// The offsets of one timezone, looked up by instant.
struct Clock {
    const QTimeZone &zone;

    int offset(qint64 instant) const { return offsetAt(zone, instant); }
    qint64 wall(qint64 instant) const { return instant + offset(instant); }

    // The first instant whose wall time is `wall`; when the clocks skip it, the first
    // instant after the gap (the transition).
    qint64 firstInstantAt(qint64 wall) const
    {
        const int offsets[3] = {offset(wall - 2 * kDay), offset(wall), offset(wall + 2 * kDay)};
        std::optional<qint64> best;
        qint64 lo = std::numeric_limits<qint64>::max();
        qint64 hi = std::numeric_limits<qint64>::min();
        for (int o : offsets) {
            const qint64 t = wall - o;
            lo = std::min(lo, t);
            hi = std::max(hi, t);
            if (offset(t) == o && (!best || t < *best))
                best = t;
        }
        if (best)
            return *best;
        // In a gap: wall(lo) < wall <= wall(hi), and wall time only moves forward between.
        while (hi - lo > 1) {
            const qint64 mid = lo + (hi - lo) / 2;
            if (this->wall(mid) >= wall)
                hi = mid;
            else
                lo = mid;
        }
        return hi;
    }

    // The first instant in (lo, hi] whose offset differs from offset(lo); hi if none.
    qint64 transitionAfter(qint64 lo, qint64 hi) const
    {
        const int before = offset(lo);
        if (offset(hi) == before)
            return hi;
        while (hi - lo > 1) {
            const qint64 mid = lo + (hi - lo) / 2;
            if (offset(mid) == before)
                lo = mid;
            else
                hi = mid;
        }
        return hi;
    }

    // Hour partitions start where the wall clock shows a whole hour and where the
    // offset changes, so a skipped hour has no partition and a repeated one has two.
    qint64 hourStartContaining(qint64 x) const
    {
        const qint64 w = wall(x);
        const qint64 hourWall = floorDiv(w, kHour) * kHour;
        const qint64 s = x - (w - hourWall);
        if (offset(s) == offset(x))
            return s;
        return transitionAfter(s, x);
    }

    qint64 nextHourStart(qint64 s) const
    {
        const qint64 w = wall(s);
        const qint64 nextWall = (floorDiv(w, kHour) + 1) * kHour;
        return transitionAfter(s, s + (nextWall - w));
    }
};

QDate periodStart(Grain grain, QDate d)
{
    switch (grain) {
    case Grain::Week: return d.addDays(1 - d.dayOfWeek());
    case Grain::Month: return QDate(d.year(), d.month(), 1);
    case Grain::Day:
    case Grain::Hour: break;
    }
    return d;
}

QDate periodAfter(Grain grain, QDate p, int n = 1)
{
    switch (grain) {
    case Grain::Week: return p.addDays(7 * n);
    case Grain::Month: return p.addMonths(n);
    case Grain::Day:
    case Grain::Hour: break;
    }
    return p.addDays(n);
}

const char *expectedForm(Grain grain)
{
    switch (grain) {
    case Grain::Hour: return "YYYY-MM-DDTHH, or YYYY-MM-DDTHH+HH:MM for a repeated hour";
    case Grain::Day: return "YYYY-MM-DD";
    case Grain::Week: return "YYYY-Www, or the Monday as YYYY-MM-DD";
    case Grain::Month: return "YYYY-MM";
    }
    return "";
}

const char *article(Grain grain)
{
    return grain == Grain::Hour ? "an" : "a";
}

// Why year-month-day names no date ("February 2026 has 28 days"), with what to write
// instead; empty if it is one. The year is at least 1 here.
std::pair<std::string, std::string> noSuchDate(int year, int month, int day)
{
    if (month < 1 || month > 12)
        return {"there is no month " + format("%02d", month) + " (months run 01 to 12)",
                "Partition names are written year first: YYYY-MM-DD."};
    const QDate first(year, month, 1);
    const int days = first.daysInMonth();
    if (day >= 1 && day <= days)
        return {};
    const std::string monthText = QLocale::c().monthName(month).toStdString() + " " + format("%04d", year);
    const QDate nearest = day < 1 ? first : QDate(year, month, days);
    return {monthText + " has " + std::to_string(days) + " days",
            std::string(day < 1 ? "The first" : "The last") + " day of " + monthText + " is " + dayName(nearest) + "."};
}

// The instants a bound may take: ISO 8601 text with a four-digit year (what Qt writes,
// what PostgreSQL's date and timestamptz read back) both in UTC and on the zone's wall
// clock, from 0001-01-01T00:00:00 to 9999-12-31T23:59:59.
std::pair<qint64, qint64> expressibleInstants(const Clock &clock)
{
    const qint64 first = wallOfDate(QDate(1, 1, 1));
    const qint64 end = wallOfDate(QDate(10000, 1, 1));
    return {std::max(first, clock.firstInstantAt(first)), std::min(end, clock.firstInstantAt(end)) - 1};
}

} // namespace

const char *toString(Grain grain)
{
    switch (grain) {
    case Grain::Hour: return "hour";
    case Grain::Day: return "day";
    case Grain::Week: return "week";
    case Grain::Month: return "month";
    }
    return "day";
}

bool parseGrain(const std::string &text, Grain *out)
{
    static const std::pair<const char *, Grain> grains[] = {
        {"hour", Grain::Hour}, {"day", Grain::Day}, {"week", Grain::Week}, {"month", Grain::Month}};
    for (const auto &[name, grain] : grains) {
        if (text == name) {
            if (out)
                *out = grain;
            return true;
        }
    }
    return false;
}

std::string Partition::startText() const
{
    return isoText(start);
}

std::string Partition::endText() const
{
    return isoText(end);
}

PartitionScheme::PartitionScheme(Grain grain, const std::string &timezone)
    : m_grain(grain), m_zone(QByteArray::fromStdString(timezone))
{
}

std::string PartitionScheme::nameOf(const QDateTime &start) const
{
    const Clock clock{m_zone};
    const qint64 t = start.toSecsSinceEpoch();
    const qint64 w = clock.wall(t);
    const QDate date = dateOfWall(w);
    switch (m_grain) {
    case Grain::Hour: {
        const qint64 hourWall = floorDiv(w, kHour) * kHour;
        std::string name = dayName(date);
        name += 'T';
        appendNumber(name, int((hourWall - wallOfDate(date)) / kHour), 2);
        if (clock.firstInstantAt(hourWall) < t)
            name += offsetText(clock.offset(t));
        return name;
    }
    case Grain::Day: return dayName(date);
    case Grain::Week: return weekName(periodStart(Grain::Week, date));
    case Grain::Month: return monthName(date);
    }
    return {};
}

Partition PartitionScheme::containing(const QDateTime &instant) const
{
    const auto [start, end] = boundsContaining(instant.toSecsSinceEpoch());
    Partition part;
    part.start = QDateTime::fromSecsSinceEpoch(start, m_zone);
    part.end = QDateTime::fromSecsSinceEpoch(end, m_zone);
    part.name = nameOf(part.start);
    return part;
}

std::pair<qint64, qint64> PartitionScheme::boundsContaining(qint64 x) const
{
    const Clock clock{m_zone};
    if (m_grain == Grain::Hour) {
        const qint64 start = clock.hourStartContaining(x);
        return {start, clock.nextHourStart(start)};
    }
    // Walk to the period whose bounds hold x; this also steps over a period whose every day
    // the clocks skipped (it would be empty).
    QDate p = periodStart(m_grain, dateOfWall(clock.wall(x)));
    for (;;) {
        const qint64 start = clock.firstInstantAt(wallOfDate(p));
        const qint64 end = clock.firstInstantAt(wallOfDate(periodAfter(m_grain, p)));
        if (x < start)
            p = periodAfter(m_grain, p, -1);
        else if (x >= end)
            p = periodAfter(m_grain, p);
        else
            return {start, end};
    }
}

Partition PartitionScheme::earliest() const
{
    const auto [first, last] = expressibleInstants(Clock{m_zone});
    (void)last;
    Partition before = containing(QDateTime::fromSecsSinceEpoch(first, m_zone));
    if (before.start.toSecsSinceEpoch() < first)
        before = next(before);
    return next(before);
}

Partition PartitionScheme::latest() const
{
    const auto [first, last] = expressibleInstants(Clock{m_zone});
    (void)first;
    Partition after = containing(QDateTime::fromSecsSinceEpoch(last, m_zone));
    if (after.end.toSecsSinceEpoch() > last)
        after = previous(after);
    return previous(after);
}

Partition PartitionScheme::next(const Partition &p) const
{
    return containing(p.end);
}

Partition PartitionScheme::previous(const Partition &p) const
{
    return containing(p.start.addSecs(-1));
}

std::vector<Partition> PartitionScheme::range(const Partition &from, const Partition &to) const
{
    std::vector<Partition> out;
    if (to.start < from.start)
        return out;
    // As next() from `from`, but each partition's start is the instant its predecessor
    // ended, not made again (a year of hours: half the QDateTimes).
    const qint64 last = to.start.toSecsSinceEpoch();
    Partition p = containing(from.start);
    const qint64 first = p.start.toSecsSinceEpoch();
    const qint64 typical = m_grain == Grain::Hour ? kHour
                         : m_grain == Grain::Day  ? kDay
                         : m_grain == Grain::Week ? 7 * kDay
                                                  : 28 * kDay;
    out.reserve(std::size_t((last - first) / typical + 2));  // an estimate: a day of 23 hours adds one
    qint64 end = p.end.toSecsSinceEpoch();
    for (;;) {
        out.push_back(std::move(p));
        const QDateTime &start = out.back().end;
        if (end > last)
            return out;
        p.start = start;
        end = boundsContaining(end).second;
        p.end = QDateTime::fromSecsSinceEpoch(end, m_zone);
        p.name = nameOf(p.start);
    }
}

namespace {

// Reads one partition name against a scheme: the name's form for the grain, then whether
// that partition exists and can be expressed. Every error names the value as written.
class NameReader {
public:
    NameReader(const PartitionScheme &scheme, const std::string &name)
        : m_scheme(scheme), m_grain(scheme.grain()), m_zone(scheme.timezone()), m_clock{m_zone}, m_name(name),
          m_text(QString::fromStdString(name))
    {
    }

    Result<Partition> read() const
    {
        switch (m_grain) {
        case Grain::Hour: return hourPartition();
        case Grain::Day: return dayPartition();
        case Grain::Week: return weekPartition();
        case Grain::Month: return monthPartition();
        }
        return invalid();
    }

private:
    Error invalid(const std::string &why = {}) const
    {
        std::string message = "'" + m_name + "' is not " + article(m_grain) + " " + toString(m_grain)
            + " partition (expected " + expectedForm(m_grain) + ")";
        if (!why.empty())
            message += ": " + why;
        return Error::make(ErrorKind::Usage, message);
    }

    Error missing(const std::pair<std::string, std::string> &why) const
    {
        return Error::make(ErrorKind::Usage, "'" + m_name + "' does not exist: " + why.first, why.second);
    }

    Error outOfRange(bool early) const
    {
        const Partition limit = early ? m_scheme.earliest() : m_scheme.latest();
        const Partition other = early ? m_scheme.latest() : m_scheme.earliest();
        const std::string grain = toString(m_grain);
        const std::string zone = m_zone.id().toStdString();
        return Error::make(
            ErrorKind::Usage,
            "'" + m_name + "' is " + (early ? "before the first " : "past the last ") + grain + " partition Reprint can express, "
                + limit.name + ": a window and the partitions on either side of it must start and end within the years "
                  "0001 to 9999 (" + (zone == "UTC" ? std::string("in UTC") : "in UTC and in " + zone) + ")",
            "Name " + std::string(article(m_grain)) + " " + grain + " from " + (early ? limit : other).name + " to "
                + (early ? other : limit).name + "; nothing was changed.");
    }

    // Names with a year within two of either end of 0001..9999 may be past what can be
    // bound (see earliest() and latest()); the rest are far from it.
    Result<Partition> checkRange(Result<Partition> p) const
    {
        if (!p)
            return p;
        const int year = p->start.toUTC().date().year();
        if (year > 2 && year < 9998)
            return p;
        if (p->start < m_scheme.earliest().start)
            return outOfRange(true);
        if (p->start > m_scheme.latest().start)
            return outOfRange(false);
        return p;
    }

    // The date of a matched YYYY-MM-DD, or why it names none.
    Result<QDate> dateFrom(const QRegularExpressionMatch &m) const
    {
        const int year = m.captured(1).toInt();
        const int month = m.captured(2).toInt();
        const int day = m.captured(3).toInt();
        if (year < 1)
            return outOfRange(true);
        if (auto why = noSuchDate(year, month, day); !why.first.empty())
            return missing(why);
        return QDate(year, month, day);
    }

    Result<Partition> calendarPartition(QDate nominal) const
    {
        Partition p = m_scheme.containing(
            QDateTime::fromSecsSinceEpoch(m_clock.firstInstantAt(wallOfDate(nominal)), m_zone));
        if (periodStart(m_grain, dateOfWall(m_clock.wall(p.start.toSecsSinceEpoch()))) != nominal)
            return invalid("the clocks in " + m_zone.id().toStdString() + " skip it");
        return checkRange(p);
    }

    Result<Partition> hourPartition() const
    {
        static const QRegularExpression hourRe(
            QStringLiteral("^(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2})(?:([+-])(\\d{2}):(\\d{2}))?$"));
        const QRegularExpressionMatch m = hourRe.match(m_text);
        if (!m.hasMatch())
            return invalid();
        const auto date = dateFrom(m);
        if (!date)
            return date.error();
        const int hour = m.captured(4).toInt();
        if (hour > 23)
            return missing({"hours run 00 to 23", "The hour after " + dayName(*date) + "T23 is "
                                                      + dayName(date->addDays(1)) + "T00."});
        const qint64 hourWall = wallOfDate(*date) + hour * kHour;
        if (m.captured(5).isEmpty())
            return hourOnTheWall(hourWall);
        return hourAtOffset(m, hourWall);
    }

    static std::string basicName(const Partition &p) { return p.name.substr(0, 13); }

    // An hour named without an offset: the first instant the wall clock shows it.
    Result<Partition> hourOnTheWall(qint64 hourWall) const
    {
        Partition p = m_scheme.containing(QDateTime::fromSecsSinceEpoch(m_clock.firstInstantAt(hourWall), m_zone));
        if (basicName(p) != m_name.substr(0, 13))
            return invalid("the clocks in " + m_zone.id().toStdString() + " skip that hour");
        return checkRange(p);
    }

    // An hour named with its offset, which tells apart the two hours a wall clock shows
    // twice.
    Result<Partition> hourAtOffset(const QRegularExpressionMatch &m, qint64 hourWall) const
    {
        const std::string basic = m_name.substr(0, 13);
        const int minutes = m.captured(7).toInt();
        if (minutes > 59)
            return missing({"the minutes of an offset run 00 to 59", "Write the offset as +HH:MM, e.g. +01:00."});
        int offset = m.captured(6).toInt() * 3600 + minutes * 60;
        if (m.captured(5) == QLatin1String("-"))
            offset = -offset;
        const Partition around = m_scheme.containing(QDateTime::fromSecsSinceEpoch(hourWall - offset, m_zone));
        for (const Partition &p : {m_scheme.previous(around), around, m_scheme.next(around)}) {
            if (basicName(p) == basic && p.start.offsetFromUtc() == offset)
                return checkRange(p);
        }
        return invalid("no such hour at that offset in " + m_zone.id().toStdString());
    }

    Result<QDate> matchedDay() const
    {
        static const QRegularExpression dayRe(QStringLiteral("^(\\d{4})-(\\d{2})-(\\d{2})$"));
        const QRegularExpressionMatch m = dayRe.match(m_text);
        if (!m.hasMatch())
            return invalid();
        return dateFrom(m);
    }

    Result<Partition> dayPartition() const
    {
        const auto date = matchedDay();
        if (!date)
            return date.error();
        return calendarPartition(*date);
    }

    // A week is named by its ISO week (YYYY-Www) or by its Monday (YYYY-MM-DD).
    Result<Partition> weekPartition() const
    {
        static const QRegularExpression weekRe(QStringLiteral("^(\\d{4})-W(\\d{2})$"));
        if (const QRegularExpressionMatch m = weekRe.match(m_text); m.hasMatch()) {
            const int year = m.captured(1).toInt();
            const int week = m.captured(2).toInt();
            if (year < 1)
                return outOfRange(true);
            const QDate jan4(year, 1, 4);
            const QDate firstMonday = jan4.addDays(1 - jan4.dayOfWeek());
            const QDate monday = firstMonday.addDays(7 * (week - 1));
            int weekYear = 0;
            if (week < 1 || monday.weekNumber(&weekYear) != week || weekYear != year)
                return invalid(std::to_string(year) + " has no week " + std::to_string(week));
            return calendarPartition(monday);
        }
        const auto date = matchedDay();
        if (!date)
            return date.error();
        if (date->dayOfWeek() != 1)
            return invalid("it is a " + QLocale::c().dayName(date->dayOfWeek()).toStdString() + ", not a Monday");
        return calendarPartition(*date);
    }

    Result<Partition> monthPartition() const
    {
        static const QRegularExpression monthRe(QStringLiteral("^(\\d{4})-(\\d{2})$"));
        const QRegularExpressionMatch m = monthRe.match(m_text);
        if (!m.hasMatch())
            return invalid();
        const int year = m.captured(1).toInt();
        const int month = m.captured(2).toInt();
        if (year < 1)
            return outOfRange(true);
        if (month < 1 || month > 12)
            return missing({"months run 01 to 12", "Partition names are written year first: YYYY-MM."});
        return calendarPartition(QDate(year, month, 1));
    }

    const PartitionScheme &m_scheme;
    const Grain m_grain;
    const QTimeZone &m_zone;
    const Clock m_clock;
    const std::string &m_name;
    const QString m_text;
};

} // namespace

Result<Partition> PartitionScheme::parse(const std::string &name) const
{
    return NameReader(*this, name).read();
}

} // namespace reprint::backfill
