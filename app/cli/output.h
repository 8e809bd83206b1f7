#pragma once
// Prints engine results to stdout as a table, JSON (shapes in design.md) or CSV.

#include "backfill/engine.h"
#include "backfill/reviewfacts.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <string>

namespace reprint::cli {

enum class Format { Table, Json, Csv };
bool parseFormat(const QString &text, Format *out);

class Output {
public:
    // `specPath`: added to the commands the output suggests, so that each runs as printed.
    Output(Format format, std::string specPath) : m_format(format), m_specPath(std::move(specPath)) {}

    void status(const backfill::Model &model, const std::vector<backfill::StatusRow> &rows);
    // A backfill's review; a cascade's downstream reviews follow it (in JSON, as "cascade").
    void review(const backfill::Review &review, const std::vector<backfill::Review> &cascade = {});
    // A partition's row diff: its counts, and the page of rows read at `offset` (at most
    // `limit` of them; no limit: all).
    void rowDiff(const backfill::RowDiff &diff, const backfill::RowDiffPage &page, long long offset, std::optional<long long> limit);
    void run(const backfill::RunOutcome &run);
    void publish(const backfill::PublishOutcome &publish);
    void history(const std::vector<backfill::HistoryRow> &rows);

private:
    QJsonObject reviewJson(const backfill::Review &review) const;
    // One table: columns, rows; numeric columns are right-aligned in table form.
    void table(const QStringList &headers, const QList<QStringList> &rows, const QList<int> &numeric = {});
    Format m_format;
    std::string m_specPath;
};

// A duration to a tenth, as every message prints it: "12.3" (the unit, s or ms, is the
// caller's).
QString durationText(double value);

// new - old with the precision of the inputs, and the change in percent ("" when old is 0).
QString deltaText(const std::optional<std::string> &oldValue, const std::optional<std::string> &newValue);
QString deltaPercentText(const std::optional<std::string> &oldValue, const std::optional<std::string> &newValue);

} // namespace reprint::cli
