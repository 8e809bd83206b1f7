#pragma once
// A banner: a framed, opaque panel tinted with `tint` over the window colour (more strongly
// on a dark palette), for an error or a warning that sits in a layout. Its children (icon,
// text, buttons) are the caller's; it is owned by `parent`.

#include <QString>

class QColor;
class QFrame;
class QWidget;

namespace reprint::views {

QFrame *banner(QWidget *parent, const QColor &tint, const QString &objectName);

} // namespace reprint::views
