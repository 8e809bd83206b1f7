#pragma once
// The calendar's detail pane (a scroll area, objectName "detailPane", holding the label
// "detail"): the partition under the cursor (or the last selected) with its bounds in the
// model's timezone and in UTC, its rows, measures, load time, claim and the metric shown,
// then each check with its value against the source. With no partition to show, a hint on
// what to do.
//
// It shows what the calendar model holds; it reads nothing itself.
// Thread affinity: GUI thread.

#include <QScrollArea>

class QLabel;
class QModelIndex;

namespace reprint::model {
class PartitionCalendarModel;
}

namespace reprint::views {

class PartitionDetail : public QScrollArea {
    Q_OBJECT

public:
    explicit PartitionDetail(QWidget *parent = nullptr);

    // Partition `ordinal` of `calendar`. `refreshing`: its statistics are being read;
    // `metricName`: the calendar's colour metric, shown with its value.
    void showPartition(const model::PartitionCalendarModel &calendar, int ordinal, bool refreshing,
                       const QString &metricName);
    // Rich text in place of a partition.
    void showHint(const QString &text);

private:
    // The checks of the partition at `index`, with their values against the source.
    static QString checksHtml(const QModelIndex &index);

    QLabel *m_label = nullptr;
};

} // namespace reprint::views
