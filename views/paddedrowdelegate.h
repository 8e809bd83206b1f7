#pragma once
// Table rows with room to breathe: the default row is only as tall as its text; this one
// is 8 pixels taller. Owned by the view it is set on.
// Thread affinity: GUI thread.

#include <QStyledItemDelegate>

namespace reprint::views {

class PaddedRowDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace reprint::views
