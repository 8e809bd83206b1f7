#include "frozencolumnsview.h"

#include <QHeaderView>
#include <QScrollBar>

namespace reprint::views {

FrozenColumnsView::FrozenColumnsView(int frozen, QWidget *parent)
    : QTableView(parent)
    , m_count(frozen)
    , m_frozen(new QTableView(this))
{
    m_frozen->setObjectName(QStringLiteral("frozenColumns"));
    m_frozen->setFocusPolicy(Qt::NoFocus);
    m_frozen->verticalHeader()->hide();
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setFrameShape(QFrame::NoFrame);
    m_frozen->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_frozen->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_frozen->setWordWrap(false);
    m_frozen->horizontalHeader()->setHighlightSections(false);
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->horizontalHeader()->setSortIndicatorShown(true);
    m_frozen->horizontalHeader()->setSectionsClickable(true);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    viewport()->stackUnder(m_frozen);
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int section, int, int size) {
        if (section < m_count) {
            m_frozen->setColumnWidth(section, size);
            place();
        }
    });
    connect(verticalHeader(), &QHeaderView::sectionResized, this, [this](int row, int, int size) { m_frozen->setRowHeight(row, size); });
    connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(), &QAbstractSlider::setValue);
    connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(), &QAbstractSlider::setValue);
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, m_frozen->horizontalHeader(), &QHeaderView::setSortIndicator);
    connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
        const QHeaderView *h = horizontalHeader();
        sortByColumn(section, h->sortIndicatorSection() == section && h->sortIndicatorOrder() == Qt::AscendingOrder
                                  ? Qt::DescendingOrder
                                  : Qt::AscendingOrder);
    });
    connect(m_frozen, &QTableView::doubleClicked, this, &QTableView::doubleClicked);
}

void FrozenColumnsView::setModel(QAbstractItemModel *model)
{
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    connect(model, &QAbstractItemModel::modelReset, this, [this] { syncColumns(); });
    connect(model, &QAbstractItemModel::layoutChanged, this, [this] { syncColumns(); });
    syncColumns();
}

int FrozenColumnsView::frozenWidth() const
{
    int w = 0;
    for (int c = 0; c < m_count; ++c)
        w += isColumnHidden(c) ? 0 : columnWidth(c);
    return w;
}

void FrozenColumnsView::resizeEvent(QResizeEvent *event)
{
    QTableView::resizeEvent(event);
    place();
}

void FrozenColumnsView::updateGeometries()
{
    QTableView::updateGeometries();
    place();
}

void FrozenColumnsView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (index.column() >= m_count)
        QTableView::scrollTo(index, hint);
}

QModelIndex FrozenColumnsView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers)
{
    const QModelIndex current = QTableView::moveCursor(action, modifiers);
    const int x = visualRect(current).x();
    if (action == MoveLeft && current.column() >= m_count && x < frozenWidth())
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + x - frozenWidth());
    return current;
}

void FrozenColumnsView::syncColumns()
{
    if (!model())
        return;
    m_frozen->verticalHeader()->setDefaultSectionSize(verticalHeader()->defaultSectionSize());
    for (int c = 0; c < model()->columnCount(); ++c) {
        m_frozen->setColumnHidden(c, c >= m_count);
        if (c < m_count)
            m_frozen->setColumnWidth(c, columnWidth(c));
    }
    place();
}

void FrozenColumnsView::place()
{
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), frozenWidth(),
                          viewport()->height() + horizontalHeader()->height());
}

} // namespace reprint::views
