#pragma once
// A table whose first `frozen` columns stay put while the others scroll sideways: a second
// view over the same model and selection, laid over the left edge, as Qt's Frozen Column
// example does. Sorting, double clicks and row heights follow the table; the frozen view
// (objectName "frozenColumns") is the table's child and never takes the focus.
//
// Thread affinity: GUI thread. The model is not owned, as with any QTableView.

#include <QTableView>

namespace reprint::views {

class FrozenColumnsView : public QTableView {
    Q_OBJECT

public:
    FrozenColumnsView(int frozen, QWidget *parent);

    void setModel(QAbstractItemModel *model) override;
    // The width of the frozen columns that are shown.
    int frozenWidth() const;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void updateGeometries() override;
    void scrollTo(const QModelIndex &index, ScrollHint hint) override;
    QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;

private:
    void syncColumns();
    void place();

    int m_count;
    QTableView *m_frozen;
};

} // namespace reprint::views
