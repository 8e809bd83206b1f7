#pragma once
// The page a screen shows before it has anything to show: a heading and a paragraph of
// what to do next, in a centred column.

#include <QString>

class QWidget;

namespace reprint::views {

QWidget *placeholderPage(const QString &title, const QString &text);

} // namespace reprint::views
