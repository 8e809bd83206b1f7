#include "reviewproxymodel.h"

#include "reviewmodel.h"

namespace reprint::model {

ReviewProxyModel::ReviewProxyModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(ReviewModel::SortRole);
}

void ReviewProxyModel::setFilter(Filter filter)
{
    if (filter == m_filter)
        return;
    m_filter = filter;
    invalidateFilter();
}

bool ReviewProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    if (i.data(ReviewModel::TotalsRole).toBool())
        return true;
    switch (m_filter) {
    case Filter::All:
        return true;
    case Filter::Changed:
        return i.data(ReviewModel::ChangedRole).toBool() || i.data(ReviewModel::ProblemRole).toBool();
    case Filter::Problems:
        return i.data(ReviewModel::ProblemRole).toBool();
    }
    return true;
}

bool ReviewProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool leftTotals = left.data(ReviewModel::TotalsRole).toBool();
    const bool rightTotals = right.data(ReviewModel::TotalsRole).toBool();
    if (leftTotals || rightTotals) {
        if (leftTotals && rightTotals)
            return false;
        return leftTotals ? sortOrder() == Qt::DescendingOrder : sortOrder() == Qt::AscendingOrder;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace reprint::model
