#include "banner.h"

#include "darkpalette.h"

#include <QFrame>

namespace reprint::views {

QFrame *banner(QWidget *parent, const QColor &tint, const QString &objectName)
{
    auto *frame = new QFrame(parent);
    frame->setObjectName(objectName);
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setAutoFillBackground(true);
    QPalette pal = frame->palette();
    const QColor window = pal.color(QPalette::Window);
    QColor bg = tint;
    bg.setAlphaF(isDark(window) ? 0.28f : 0.18f);
    // Blend over the window colour so that the banner stays opaque.
    const QColor solid = QColor::fromRgbF(window.redF() * (1 - bg.alphaF()) + tint.redF() * bg.alphaF(),
                                          window.greenF() * (1 - bg.alphaF()) + tint.greenF() * bg.alphaF(),
                                          window.blueF() * (1 - bg.alphaF()) + tint.blueF() * bg.alphaF());
    pal.setColor(QPalette::Window, solid);
    frame->setPalette(pal);
    return frame;
}

} // namespace reprint::views
