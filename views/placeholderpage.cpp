#include "placeholderpage.h"

#include <QFont>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QWidget>

namespace reprint::views {

QWidget *placeholderPage(const QString &title, const QString &text)
{
    auto *page = new QWidget;
    // A centred column of fixed width; no alignment flags on the wrapped label, so that
    // the layout asks it for its height at that width.
    auto *column = new QWidget(page);
    column->setFixedWidth(560);
    auto *columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 0, 0);
    columnLayout->setSpacing(10);
    auto *heading = new QLabel(title, column);
    QFont headingFont = heading->font();
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.3);
    headingFont.setBold(true);
    heading->setFont(headingFont);
    heading->setAlignment(Qt::AlignHCenter);
    auto *body = new QLabel(text, column);
    body->setWordWrap(true);
    body->setAlignment(Qt::AlignHCenter);
    body->setForegroundRole(QPalette::PlaceholderText);
    columnLayout->addWidget(heading);
    columnLayout->addWidget(body);

    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(column);
    row->addStretch(1);
    auto *layout = new QVBoxLayout(page);
    layout->addStretch(2);
    layout->addLayout(row);
    layout->addStretch(3);
    return page;
}

} // namespace reprint::views
