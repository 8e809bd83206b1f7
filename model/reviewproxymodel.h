#pragma once
// Filters and sorts a ReviewModel for the totals table: all rows, changed rows only, or
// problems only (unexpected changes, source mismatches, failing outside partitions).
// The totals row always stays, and stays last whichever way the table is sorted.
// Sorting uses ReviewModel::SortRole (numbers as numbers). Thread affinity: GUI thread.

#include <QSortFilterProxyModel>

namespace reprint::model {

class ReviewProxyModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    enum class Filter { All, Changed, Problems };

    explicit ReviewProxyModel(QObject *parent = nullptr);

    void setFilter(Filter filter);
    Filter filter() const { return m_filter; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    Filter m_filter = Filter::All;
};

} // namespace reprint::model
