#pragma once
// Reprint's dark palette (`reprint-review --dark`, REPRINT_DARK=1), the one the screens are
// checked and screenshotted in.
//
// Thread affinity: the GUI thread.

class QColor;

namespace reprint::views {

// True when `c` is dark: light ink goes on it, and a tint over it is stronger.
bool isDark(const QColor &c);

// Sets the Fusion style and the dark palette on the application.
void useDarkPalette();

} // namespace reprint::views
