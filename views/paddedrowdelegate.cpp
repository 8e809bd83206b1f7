#include "paddedrowdelegate.h"

namespace reprint::views {

QSize PaddedRowDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    return QStyledItemDelegate::sizeHint(option, index) + QSize(0, 8);
}

} // namespace reprint::views
