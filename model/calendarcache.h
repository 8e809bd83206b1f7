#pragma once
// The statistics the calendar opens from: what its last refresh read, kept as a JSON file
// under the user's cache directory, one per spec and model.
//
// Pure functions of their arguments: safe on any thread. The calendar reads and writes
// the file on a pool thread, never on the GUI thread (a year of hourly partitions is a
// file of several MB).

#include "engineclient.h"

#include "backfill/spec.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <optional>

namespace reprint::model {

struct CalendarCache {
    QDateTime time;  // when the statistics were read
    StatusRows rows;
};

// The file's text for `cache` of `model` (its name, grain and zone are written beside).
QByteArray calendarCacheJson(const backfill::Model &model, const CalendarCache &cache);
// The cache in `json`; nullopt when it is not one of `model` as it is now (another name,
// grain or zone: the partitions would not be the same) or does not parse. The rows'
// partitions come from the model's scheme, not from the file.
std::optional<CalendarCache> calendarCacheFromJson(const QByteArray &json, const backfill::Model &model);

// Where the cache of `model` in the spec at `specPath` lives.
QString calendarCachePath(const QString &specPath, const QString &model);
// Reads and parses the file (nullopt: none, unreadable or not this model's).
std::optional<CalendarCache> readCalendarCache(const QString &path, const backfill::Model &model);
// Writes the file atomically (QSaveFile), creating its directory; false when it could not.
bool writeCalendarCache(const QString &path, const backfill::Model &model, const CalendarCache &cache);

} // namespace reprint::model
