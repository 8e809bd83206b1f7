#pragma once
// Reprint's dark palette (`reprint-review --dark`, REPRINT_DARK=1), the one the screens are
// checked and screenshotted in.
//
// Thread affinity: the GUI thread.

namespace reprint::views {

// Sets the Fusion style and the dark palette on the application.
void useDarkPalette();

} // namespace reprint::views
