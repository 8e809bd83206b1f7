#pragma once
// The colours of the review's marks, shared by the review screen's header and notes, its
// rules panel and its chart: good (passed, unchanged), warn (to look at) and bad (failed).
// A mark is never told by colour alone: a glyph or a word goes with it.

#include <QColor>

namespace reprint::views {

inline const QColor kGood(0x2e, 0x9e, 0x5b);
inline const QColor kWarn(0xd9, 0x8c, 0x1f);
inline const QColor kBad(0xd6, 0x3b, 0x3b);

} // namespace reprint::views
